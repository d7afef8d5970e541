"""PubMed and PMC XML, plain-text abstracts, and the .xml dispatch."""

from __future__ import annotations

from pathlib import Path

import pytest

from eagle_rag.errors import IngestError
from eagle_rag_biomed.parsers.abstract import looks_like_abstract, parse_abstract
from eagle_rag_biomed.parsers.pubmed import parse_pmc, parse_pubmed
from eagle_rag_biomed.parsers.xml_dispatch import parse_biomed_xml

PUBMED = b"""<?xml version="1.0" encoding="utf-8"?>
<!DOCTYPE PubmedArticleSet PUBLIC "-//NLM//DTD PubMedArticle, 1st January 2019//EN"
  "https://dtd.nlm.nih.gov/ncbi/pubmed/out/pubmed_190101.dtd">
<PubmedArticleSet>
 <PubmedArticle>
  <MedlineCitation Status="MEDLINE" Owner="NLM">
   <PMID Version="1">12345678</PMID>
   <Article PubModel="Print">
    <Journal><Title>The Lancet</Title><JournalIssue><PubDate><Year>2003</Year></PubDate></JournalIssue></Journal>
    <ArticleTitle>Atorvastatin for primary prevention in hypertensive patients.</ArticleTitle>
    <Abstract>
     <AbstractText Label="BACKGROUND" NlmCategory="BACKGROUND">Statins lower <i>LDL</i> cholesterol.</AbstractText>
     <AbstractText Label="METHODS">We randomised 10305 patients to atorvastatin 10 mg or placebo.</AbstractText>
     <AbstractText Label="FINDINGS">Fatal CHD and non-fatal MI were reduced by 36%.</AbstractText>
    </Abstract>
    <AuthorList><Author><LastName>Sever</LastName><Initials>PS</Initials></Author></AuthorList>
   </Article>
   <ChemicalList><Chemical><NameOfSubstance>Atorvastatin</NameOfSubstance></Chemical></ChemicalList>
   <MeshHeadingList><MeshHeading><DescriptorName>Hypertension</DescriptorName></MeshHeading></MeshHeadingList>
  </MedlineCitation>
  <PubmedData><ArticleIdList><ArticleId IdType="doi">10.1016/s0140-6736(03)12948-0</ArticleId></ArticleIdList>
  </PubmedData>
 </PubmedArticle>
 <PubmedArticle>
  <MedlineCitation><PMID>222</PMID><Article><ArticleTitle>Second article</ArticleTitle>
   <Abstract><AbstractText>An unlabelled abstract.</AbstractText></Abstract></Article></MedlineCitation>
 </PubmedArticle>
</PubmedArticleSet>
"""

PMC = b"""<?xml version="1.0"?>
<article xmlns:xlink="http://www.w3.org/1999/xlink" article-type="research-article">
 <front>
  <journal-meta><journal-title-group><journal-title>PLoS One</journal-title></journal-title-group></journal-meta>
  <article-meta>
   <article-id pub-id-type="pmc">PMC1234567</article-id>
   <article-id pub-id-type="pmid">7654321</article-id>
   <title-group><article-title>Imatinib in chronic myeloid leukaemia</article-title></title-group>
   <pub-date><year>2010</year></pub-date>
   <abstract>
    <sec><title>Background</title><p>BCR-ABL drives CML.</p></sec>
    <sec><title>Results</title><p>Imatinib induced remission in 95% of patients.</p></sec>
   </abstract>
   <kwd-group><kwd>imatinib</kwd><kwd>CML</kwd></kwd-group>
  </article-meta>
 </front>
 <body>
  <sec><title>Methods</title><p>A phase 3 trial.</p>
   <sec><title>Study design</title><p>Patients were randomised 1:1.</p>
    <table-wrap><caption><p>Table 1. Baseline characteristics</p></caption><table><tr><td>x</td></tr></table>
    </table-wrap>
   </sec>
  </sec>
  <sec><title>Discussion</title><p>Imatinib is effective.</p></sec>
 </body>
 <back><ref-list><ref><mixed-citation>Reference text</mixed-citation></ref></ref-list></back>
</article>
"""

ABSTRACT = """Metformin and cancer incidence in type 2 diabetes

BACKGROUND: Metformin may lower cancer risk.
It is widely prescribed.
METHODS: A cohort of 8000 patients was followed for 10 years.
RESULTS: Cancer incidence was lower with metformin (HR 0.63).
CONCLUSIONS: Metformin use was associated with reduced cancer incidence.
PMID: 19564453
"""


@pytest.mark.unit
def test_pubmed_articles_with_labels_and_metadata() -> None:
    docs = parse_pubmed(Path("set.xml"), PUBMED, "kb")
    assert [d.document_id for d in docs] == ["pmid:12345678", "pmid:222"]
    first = docs[0]
    title = "Atorvastatin for primary prevention in hypertensive patients."
    assert [s.path for s in first.sections] == [(title, "Background"), (title, "Methods"), (title, "Findings")]
    assert first.sections[0].text == f"{title}\nStatins lower LDL cholesterol."
    assert first.source_type == "pubmed"
    meta = first.metadata
    assert (meta["pmid"], meta["journal"], meta["year"]) == ("12345678", "The Lancet", "2003")
    assert meta["doi"] == "10.1016/s0140-6736(03)12948-0"
    assert meta["chemicals"] == ["Atorvastatin"] and meta["mesh_terms"] == ["Hypertension"]
    assert meta["authors"] == ["Sever PS"]
    assert docs[1].sections[0].path == ("Second article", "Abstract")


@pytest.mark.unit
def test_pmc_article_sections_nest_and_skip_references() -> None:
    (doc,) = parse_pmc(Path("a.nxml"), PMC, "kb")
    title = "Imatinib in chronic myeloid leukaemia"
    paths = [s.path for s in doc.sections]
    assert paths == [(title, "Background"), (title, "Results"), (title, "Methods"),
                     (title, "Methods", "Study design"), (title, "Discussion")]
    design = doc.sections[3]
    assert "randomised 1:1" in design.text and "Table 1. Baseline characteristics" in design.text
    assert "Reference text" not in doc.full_text
    assert doc.document_id == "pmc:PMC1234567"
    assert doc.metadata["keywords"] == ["imatinib", "CML"]
    assert doc.metadata["journal"] == "PLoS One"


@pytest.mark.unit
def test_xml_dispatch_picks_the_parser_by_root() -> None:
    assert parse_biomed_xml(Path("p.xml"), PUBMED, "kb")[0].source_type == "pubmed"
    assert parse_biomed_xml(Path("a.xml"), PMC, "kb")[0].source_type == "pmc"


@pytest.mark.unit
def test_pubmed_errors() -> None:
    with pytest.raises(IngestError, match="no PubmedArticle"):
        parse_pubmed(Path("e.xml"), b"<PubmedArticleSet/>", "kb")
    with pytest.raises(IngestError, match="neither title nor abstract"):
        parse_pubmed(Path("e.xml"), b"<PubmedArticleSet><PubmedArticle><MedlineCitation><PMID>1</PMID>"
                     b"<Article/></MedlineCitation></PubmedArticle></PubmedArticleSet>", "kb")


@pytest.mark.unit
def test_plain_abstract_labels_and_metadata() -> None:
    (doc,) = parse_abstract(Path("metformin.abstract.txt"), ABSTRACT.encode(), "kb")
    title = "Metformin and cancer incidence in type 2 diabetes"
    assert doc.name == title
    assert [s.path[1] for s in doc.sections] == ["Background", "Methods", "Results", "Conclusions"]
    assert doc.sections[0].text == f"{title}\nMetformin may lower cancer risk. It is widely prescribed."
    assert doc.metadata["pmid"] == "19564453"
    assert "PMID" not in doc.full_text
    assert looks_like_abstract(ABSTRACT)
    assert not looks_like_abstract("Shopping list\nNote: buy milk\n")


@pytest.mark.unit
def test_unlabelled_abstract_and_errors() -> None:
    (doc,) = parse_abstract(Path("a.txt"), b"A title\n\nFirst paragraph.\n\nSecond paragraph.", "kb")
    assert doc.sections[0].path == ("A title", "Abstract")
    assert doc.sections[0].text == "A title\nFirst paragraph.\nSecond paragraph."
    with pytest.raises(IngestError, match="empty"):
        parse_abstract(Path("a.txt"), b"  \n\n", "kb")
    with pytest.raises(IngestError, match="no abstract text"):
        parse_abstract(Path("a.txt"), b"Only a title\n", "kb")
    with pytest.raises(IngestError, match="UTF-8"):
        parse_abstract(Path("a.txt"), b"\xff\xfe\xfa", "kb")
