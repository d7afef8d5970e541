"""RDKit molecules: parsing with clear errors, sanitisation reports and descriptors.

Shared by the compound parsers and :mod:`eagle_rag_biomed.chem.fingerprints`. RDKit's own log lines are
silenced; problems come back as exceptions or messages instead.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from rdkit import Chem, rdBase
from rdkit.Chem import Descriptors, rdMolDescriptors

from eagle_rag.plugin_api import InvalidRequest


class InvalidStructure(InvalidRequest):
    """A SMILES, InChI or molecule record that RDKit cannot read or sanitise.

    A ``ValueError`` (through :class:`~eagle_rag.errors.InvalidRequest`), so front ends answer 400.
    """

    code = "invalid_structure"


_STAMP = re.compile(r"^\[\d\d:\d\d:\d\d\]\s*(?:ERROR:\s*)?")


@contextmanager
def rdkit_errors() -> Iterator[list[str]]:
    """Silence RDKit's log inside the block; the yielded list gets its error lines when the block ends.

    Uses ``rdBase.CaptureErrorLog`` where this RDKit has it (2025.09+); older versions only silence.
    """
    lines: list[str] = []
    capture = getattr(rdBase, "CaptureErrorLog", None)
    with rdBase.BlockLogs():
        if capture is None:
            yield lines
            return
        with capture() as captured:
            yield lines
    try:
        text = str(captured.messages)
    except UnicodeDecodeError:  # RDKit quotes the input's bytes in its messages, and they are not UTF-8
        text = "unreadable record (RDKit's error message quotes bytes that are not valid UTF-8)"
    lines.extend(_STAMP.sub("", line).strip() for line in text.splitlines() if line.strip())


def without_hydrogens(mol: Chem.Mol) -> Chem.Mol:
    """A sanitised copy of ``mol`` without explicit hydrogens (mol2 / SD files often list them)."""
    with rdBase.BlockLogs():
        return Chem.RemoveHs(mol)


def sanitize_problem(mol: Chem.Mol) -> str | None:
    """Sanitise ``mol`` in place. Returns None when it is valid, else RDKit's first problem message."""
    with rdBase.BlockLogs():
        try:
            problems = Chem.DetectChemistryProblems(mol)
            if problems:
                return str(problems[0].Message())
            Chem.SanitizeMol(mol)
        except Exception as exc:  # sanitisation exception types, or a RuntimeError for an impossible valence
            return error_message(exc)
    return None


def error_message(exc: Exception) -> str:
    """RDKit's message for ``exc`` on one line.

    An invariant violation (a RuntimeError) is several lines, ``Pre-condition Violation``, what and
    where: the first two are kept.
    """
    head = [line.strip() for line in str(exc).splitlines() if line.strip()][:2]
    return ": ".join(head) or type(exc).__name__


def mol_from_smiles(smiles: str) -> Chem.Mol:
    """The sanitised molecule of ``smiles`` (or of an ``InChI=...`` string).

    Raises InvalidStructure with RDKit's reason when it cannot be parsed or sanitised.
    """
    text = smiles.strip()
    if not text:
        raise InvalidStructure("empty structure")
    with rdkit_errors() as errors:
        if text.startswith("InChI="):
            mol = Chem.MolFromInchi(text, sanitize=False)
        else:
            mol = Chem.MolFromSmiles(text, sanitize=False)
    if mol is None:
        reason = errors[0] if errors else "syntax error"
        raise InvalidStructure(f"invalid SMILES or InChI {text[:80]!r}: {reason}")
    problem = sanitize_problem(mol)
    if problem:
        raise InvalidStructure(f"invalid structure {text[:80]!r}: {problem}")
    return mol


def canonical_smiles(mol: Chem.Mol) -> str:
    """RDKit canonical isomeric SMILES of ``mol``."""
    return str(Chem.MolToSmiles(mol))


def describe(mol: Chem.Mol) -> dict[str, Any]:
    """Identity and descriptors of a sanitised molecule.

    Returns ``smiles`` (canonical), ``inchi``, ``inchikey`` (empty strings when InChI generation
    fails), ``formula``, ``mol_weight`` (average), ``exact_mass``, ``logp`` (Crippen), ``hbd``,
    ``hba``, ``tpsa`` and ``heavy_atoms``.
    """
    with rdBase.BlockLogs():
        try:
            inchi = str(Chem.MolToInchi(mol) or "")
        except Exception:  # InChI generation can fail on exotic valences
            inchi = ""
        inchikey = str(Chem.InchiToInchiKey(inchi) or "") if inchi else ""
    return {
        "smiles": canonical_smiles(mol),
        "inchi": inchi,
        "inchikey": inchikey,
        "formula": str(rdMolDescriptors.CalcMolFormula(mol)),
        "mol_weight": round(float(Descriptors.MolWt(mol)), 3),  # type: ignore[attr-defined]
        "exact_mass": round(float(rdMolDescriptors.CalcExactMolWt(mol)), 4),
        "logp": round(float(rdMolDescriptors.CalcCrippenDescriptors(mol)[0]), 3),
        "hbd": int(rdMolDescriptors.CalcNumHBD(mol)),
        "hba": int(rdMolDescriptors.CalcNumHBA(mol)),
        "tpsa": round(float(rdMolDescriptors.CalcTPSA(mol)), 2),
        "heavy_atoms": int(mol.GetNumHeavyAtoms()),
    }


def summary_text(name: str, info: dict[str, Any]) -> str:
    """A short indexable text: name, formula, SMILES, InChIKey and the descriptors."""
    lines = [name, f"Formula: {info['formula']}", f"SMILES: {info['smiles']}"]
    if info.get("inchikey"):
        lines.append(f"InChIKey: {info['inchikey']}")
    lines.append(f"MW {info['mol_weight']:.2f}; logP {info['logp']:.2f}; HBD {info['hbd']}; "
                 f"HBA {info['hba']}; TPSA {info['tpsa']:.1f}")
    return "\n".join(lines)
