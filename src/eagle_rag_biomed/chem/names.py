"""Drug names to structures: curated aliases plus the DrugBank open structures (CC0, package data).

:func:`resolve_compound_query` turns a SMILES, an InChI, a DrugBank id or a drug name (generic,
synonym or a common brand name) into one canonical SMILES, and says how it got there.
"""

from __future__ import annotations

import csv
import gzip
import io
import re
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path

from eagle_rag_biomed.chem.molecules import InvalidStructure, canonical_smiles, mol_from_smiles

PACKAGE_DATA = "drugbank_structures.csv.gz"

ALIASES: dict[str, str] = {
    # brand names and abbreviations -> DrugBank name (generic names and most synonyms resolve directly)
    "aspirin": "acetylsalicylic acid", "asa": "acetylsalicylic acid",
    "paracetamol": "acetaminophen", "apap": "acetaminophen", "tylenol": "acetaminophen",
    "advil": "ibuprofen", "motrin": "ibuprofen", "nurofen": "ibuprofen",
    "lipitor": "atorvastatin", "zocor": "simvastatin", "crestor": "rosuvastatin",
    "glucophage": "metformin", "coumadin": "warfarin", "plavix": "clopidogrel", "viagra": "sildenafil",
    "gleevec": "imatinib", "glivec": "imatinib", "iressa": "gefitinib", "tarceva": "erlotinib",
    "tagrisso": "osimertinib", "tykerb": "lapatinib", "sutent": "sunitinib", "sprycel": "dasatinib",
    "tasigna": "nilotinib", "tabrecta": "capmatinib", "tepmetko": "tepotinib",
    "elunate": "fruquintinib", "orpathys": "savolitinib", "sulanda": "surufatinib",
    "cordarone": "amiodarone", "haldol": "haloperidol", "benadryl": "diphenhydramine",
    "albuterol": "salbutamol", "alcohol": "ethanol", "vitamin c": "ascorbic acid",
}
_DRUGBANK_ID = re.compile(r"^DB\d{5}$", re.IGNORECASE)
_HEADERS = {"DrugBank ID": "drugbank_id", "Name": "name", "Drug Groups": "groups", "SMILES": "smiles"}


@dataclass(frozen=True)
class DrugRecord:
    """One DrugBank open structure."""

    drugbank_id: str
    name: str
    groups: tuple[str, ...]
    smiles: str
    synonyms: tuple[str, ...] = ()


@dataclass(frozen=True)
class DrugTable:
    """DrugBank records with case-folded lookups by id, name and synonym (names win over synonyms)."""

    records: tuple[DrugRecord, ...]
    by_id: dict[str, DrugRecord] = field(default_factory=dict)
    by_name: dict[str, DrugRecord] = field(default_factory=dict)
    by_synonym: dict[str, DrugRecord] = field(default_factory=dict)

    def lookup(self, name: str) -> tuple[DrugRecord, str] | None:
        """``(record, how)`` for a name, DrugBank id or synonym (``how`` in drugbank_id / name / synonym)."""
        key = " ".join(name.split()).casefold()
        if _DRUGBANK_ID.match(key):
            record = self.by_id.get(key.upper())
            return (record, "drugbank_id") if record else None
        if key in self.by_name:
            return self.by_name[key], "name"
        if key in self.by_synonym:
            return self.by_synonym[key], "synonym"
        return None


def read_drug_table(text: str) -> DrugTable:
    """Build a :class:`DrugTable` from CSV text in the package format or the DrugBank download format."""
    records: list[DrugRecord] = []
    for row in csv.DictReader(io.StringIO(text)):
        row = {_HEADERS.get(k, k): (v or "") for k, v in row.items() if k}
        if not row.get("smiles", "").strip():
            continue
        records.append(DrugRecord(
            row["drugbank_id"].strip(), row["name"].strip(),
            tuple(g.strip() for g in row.get("groups", "").split(";") if g.strip()), row["smiles"].strip(),
            tuple(s.strip() for s in row.get("synonyms", "").split(" | ") if s.strip())))
    table = DrugTable(tuple(records))
    for record in records:
        table.by_id.setdefault(record.drugbank_id.upper(), record)
        table.by_name.setdefault(record.name.casefold(), record)
    for record in records:
        for synonym in record.synonyms:
            table.by_synonym.setdefault(synonym.casefold(), record)
    return table


@lru_cache(maxsize=4)
def load_drug_table(path: Path | None = None) -> DrugTable:
    """The DrugBank table from ``path`` (``.csv`` or ``.csv.gz``) or from the package data (cached)."""
    if path is None:
        raw = resources.files("eagle_rag_biomed").joinpath("data", PACKAGE_DATA).read_bytes()
    else:
        raw = Path(path).read_bytes()
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    return read_drug_table(raw.decode("utf-8"))


@dataclass(frozen=True)
class ResolvedCompound:
    """A compound query resolved to a canonical SMILES.

    ``source`` says how: ``smiles``, ``inchi``, ``alias``, ``name``, ``synonym`` or ``drugbank_id``.
    """

    query: str
    smiles: str
    source: str
    name: str = ""
    drugbank_id: str = ""


def resolve_compound_query(smiles_or_name: str, table: DrugTable | None = None) -> ResolvedCompound:
    """Resolve a SMILES, InChI, DrugBank id or drug name to a canonical SMILES.

    Names are tried first (curated :data:`ALIASES`, then DrugBank names and synonyms, case-insensitive),
    then the text is parsed as a SMILES. Raises InvalidStructure when it is neither a valid
    structure nor a known drug name with a structure.
    """
    query = " ".join(str(smiles_or_name).split())
    if not query:
        raise InvalidStructure("empty compound query: give a SMILES or a drug name")
    if query.startswith("InChI="):
        return ResolvedCompound(query, canonical_smiles(mol_from_smiles(query)), "inchi")
    table = table if table is not None else load_drug_table()
    alias = ALIASES.get(query.casefold())
    found = table.lookup(alias or query)
    if found is not None:
        record, how = found
        try:
            smiles = canonical_smiles(mol_from_smiles(record.smiles))
        except InvalidStructure as exc:
            raise InvalidStructure(f"{query!r} is {record.name} ({record.drugbank_id}) but its stored "
                                   f"structure is not valid: {exc}") from exc
        return ResolvedCompound(query, smiles, "alias" if alias else how, record.name, record.drugbank_id)
    try:
        mol = mol_from_smiles(query)
    except InvalidStructure as exc:
        raise InvalidStructure(f"{query[:80]!r} is neither a valid SMILES ({exc}) "
                               "nor a known drug name") from exc
    return ResolvedCompound(query, canonical_smiles(mol), "smiles")
