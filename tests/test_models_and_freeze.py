"""Database constraints, model validation, and the freeze rule for referenced documents."""

import pytest
from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction

from annotation.corpus.models import Dataset, Document, Reference
from annotation.corpus.selectors import document_is_frozen
from annotation.corpus.services import document_update_sentences
from annotation.fams.models import AnnotationSet, Fam
from annotation.systems.models import OutputVersion, System, SystemOutput
from config.exceptions import ApplicationError

pytestmark = pytest.mark.django_db


@pytest.fixture
def doc():
    dataset = Dataset.objects.create(slug="d", name="D")
    document = Document.objects.create(
        dataset=dataset, external_id="x", sentences=["A.", "B.", "C."]
    )
    Reference.objects.create(document=document, sentences=["A and B.", "C."])
    return document


def test_external_id_is_unique_per_dataset_in_the_database(doc):
    with pytest.raises(IntegrityError), transaction.atomic():
        Document.objects.create(dataset=doc.dataset, external_id="x", sentences=["Z."])
    other = Dataset.objects.create(slug="e", name="E")
    Document.objects.create(dataset=other, external_id="x", sentences=["Z."])


def _version(system, doc):
    return OutputVersion.objects.create(system=system, dataset=doc.dataset, number=1)


def test_category_is_checked_by_the_database(doc):
    with pytest.raises(IntegrityError), transaction.atomic():
        Document.objects.filter(pk=doc.pk).update(category="medium")


def test_output_method_requires_indices_in_the_database(doc):
    system = System.objects.create(slug="s", name="S", kind="abstractive")
    with pytest.raises(IntegrityError), transaction.atomic():
        SystemOutput.objects.create(
            system=system,
            version=_version(system, doc),
            document=doc,
            sentences=["A."],
            extraction_method="exact",
        )


def test_output_clean_rejects_out_of_range_indices(doc):
    system = System.objects.create(slug="s", name="S", kind="extractive")
    output = SystemOutput(
        system=system,
        version=_version(system, doc),
        document=doc,
        sentences=["A."],
        extracted=[0, 3],
        extraction_method="given",
    )
    with pytest.raises(
        ValidationError, match=r"Indices \[3\] are out of range: document x has 3 sentences"
    ):
        output.full_clean()


def test_fam_clean_names_facet_and_group(doc):
    annotation_set = AnnotationSet.objects.create(
        dataset=doc.dataset, slug="h", name="H", kind="human"
    )
    fam = Fam(
        annotation_set=annotation_set,
        document=doc,
        reference=doc.references.get(),
        facets=[{"groups": [[0, 1]]}, {"groups": [[2], [5]]}],
    )
    with pytest.raises(ValidationError, match="facet 1, group 1: sentence index 5 is out of range"):
        fam.full_clean()
    fam.facets = [{"groups": [[0], [0]]}, {"groups": []}]
    with pytest.raises(ValidationError, match=r"facet 0, group 1: duplicate support group \[0\]"):
        fam.full_clean()
    fam.facets = [{"groups": [[0, 1]]}]
    with pytest.raises(ValidationError, match="Expected 2 facets"):
        fam.full_clean()


def test_sentences_can_change_until_an_output_refers_to_the_document(doc):
    assert not document_is_frozen(document=doc)
    document_update_sentences(document=doc, sentences=["A.", "B.", "C.", "D."])
    doc.refresh_from_db()
    assert doc.sentences == ["A.", "B.", "C.", "D."]
    system = System.objects.create(slug="s", name="S", kind="abstractive")
    SystemOutput.objects.create(
        system=system, version=_version(system, doc), document=doc, sentences=["Summary."]
    )
    assert document_is_frozen(document=doc)
    with pytest.raises(ApplicationError, match="Document 'x' is frozen"):
        document_update_sentences(document=doc, sentences=["Changed."])
    doc.refresh_from_db()
    assert doc.sentences == ["A.", "B.", "C.", "D."]


def test_a_fam_also_freezes_the_document_and_the_api_says_so(doc, client_for):
    annotation_set = AnnotationSet.objects.create(
        dataset=doc.dataset, slug="h", name="H", kind="human"
    )
    Fam.objects.create(
        annotation_set=annotation_set,
        document=doc,
        reference=doc.references.get(),
        facets=[{"groups": [[0]]}, {"groups": []}],
    )
    response = client_for("admin").put(
        f"/api/documents/{doc.pk}/sentences/", {"sentences": ["New."]}, format="json"
    )
    assert response.status_code == 400
    assert "frozen" in response.json()["message"]
    assert client_for("admin").get(f"/api/documents/{doc.pk}/").json()["frozen"] is True
    doc.refresh_from_db()
    assert doc.sentences == ["A.", "B.", "C."]


def test_admin_shows_frozen_sentences_read_only(doc, client_for, users, client):
    client.force_login(users["admin"])
    editable = client.get(f"/admin/corpus/document/{doc.pk}/change/").content.decode()
    assert 'name="sentences"' in editable
    system = System.objects.create(slug="s", name="S", kind="abstractive")
    system.outputs.create(version=_version(system, doc), document=doc, sentences=["S."])
    frozen = client.get(f"/admin/corpus/document/{doc.pk}/change/").content.decode()
    assert 'name="sentences"' not in frozen


def test_reference_admin_is_read_only_once_the_document_is_frozen(doc, client, users):
    client.force_login(users["admin"])
    reference = doc.references.get()
    url = f"/admin/corpus/reference/{reference.pk}/change/"
    assert 'name="sentences"' in client.get(url).content.decode()
    system = System.objects.create(slug="s", name="S", kind="abstractive")
    system.outputs.create(version=_version(system, doc), document=doc, sentences=["S."])
    assert 'name="sentences"' not in client.get(url).content.decode()


def test_admin_sentence_edit_goes_through_the_freeze_check(doc, client, users):
    client.force_login(users["admin"])
    url = f"/admin/corpus/document/{doc.pk}/change/"
    form = {
        "dataset": doc.dataset.pk,
        "external_id": "x",
        "position": 0,
        "category": "",
        "sentences": '["A.", "B.", "C.", "D."]',
        "meta": "{}",
        "references-TOTAL_FORMS": 0,
        "references-INITIAL_FORMS": 0,
        "references-MIN_NUM_FORMS": 0,
        "references-MAX_NUM_FORMS": 1000,
    }
    assert client.post(url, form).status_code == 302
    doc.refresh_from_db()
    assert doc.sentences == ["A.", "B.", "C.", "D."]


def test_deleting_a_dataset_removes_its_outputs_and_fams(demo):
    dataset = Dataset.objects.get(slug="demo")
    dataset.delete()
    assert not SystemOutput.objects.exists() and not Fam.objects.exists()
    assert System.objects.filter(slug="lead-3").exists()  # systems outlive datasets


def test_a_facet_marked_no_support_or_noise_has_no_groups(doc):
    annotation_set = AnnotationSet.objects.create(
        dataset=doc.dataset, slug="h", name="H", kind="human"
    )
    fam = Fam(
        annotation_set=annotation_set,
        document=doc,
        reference=doc.references.get(),
        facets=[{"groups": [[0]], "label": "noise"}, {"groups": [], "label": "no_support"}],
    )
    with pytest.raises(ValidationError, match="facet 0: a facet marked noise has no support"):
        fam.full_clean()
