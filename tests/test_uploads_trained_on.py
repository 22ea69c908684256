"""The output upload's "trained on" field (cross-dataset evaluation): REST, command and service."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from annotation.corpus.models import Dataset, Document
from annotation.systems.models import System
from tests.upload_helpers import counts, jsonl, post

pytestmark = pytest.mark.django_db

ONE = jsonl({"doc_id": "demo-001", "summary": "The council voted."})


@pytest.fixture(autouse=True)
def _setup(demo, users):
    """The researcher owns the demo systems; a second dataset to be trained on."""
    System.objects.update(owner=users["researcher"])
    other = Dataset.objects.create(slug="toy-train", name="Toy training set")
    Document.objects.create(dataset=other, external_id="t1", sentences=["One."])


def test_a_new_system_takes_the_dataset_it_was_trained_on(researcher):
    response = post(researcher, ONE, trained_on="toy-train")
    assert response.status_code == 201, response.content
    assert System.objects.get(slug="my-abs").trained_on == "toy-train"


def test_without_the_field_a_new_system_has_none(researcher):
    assert post(researcher, ONE).status_code == 201
    assert System.objects.get(slug="my-abs").trained_on == ""


def test_an_existing_system_accepts_its_own_training_set_or_none(researcher):
    assert post(researcher, ONE, trained_on="toy-train").status_code == 201
    again = post(researcher, ONE, system="my-abs", kind="", trained_on="toy-train")
    assert again.status_code == 201, again.content
    assert again.json()["version"] == 2
    blank = post(researcher, ONE, system="my-abs", kind="")
    assert blank.status_code == 201, blank.content
    assert System.objects.get(slug="my-abs").trained_on == "toy-train"


def test_another_training_set_for_an_existing_system_is_refused_and_nothing_is_written(
    researcher,
):
    assert post(researcher, ONE, trained_on="toy-train").status_code == 201
    before = counts()
    response = post(researcher, ONE, system="my-abs", kind="", trained_on="demo")
    assert response.status_code == 400
    body = response.json()
    assert body["extra"] == {"field": "trained_on"}
    assert "registered as trained on 'toy-train', not 'demo'" in body["message"]
    assert "register a new system slug" in body["message"]
    assert counts() == before
    assert System.objects.get(slug="my-abs").trained_on == "toy-train"


def test_a_system_without_a_training_set_is_not_given_one_by_an_upload(researcher):
    before = counts()
    response = post(researcher, ONE, system="lead-3", kind="", trained_on="demo")
    assert response.status_code == 400
    assert "registered as trained on no training dataset" in response.json()["message"]
    assert counts() == before
    assert System.objects.get(slug="lead-3").trained_on == ""


def test_an_unknown_training_dataset_is_refused(researcher):
    before = counts()
    response = post(researcher, ONE, trained_on="no-such-dataset")
    assert response.status_code == 400
    assert response.json()["extra"] == {"field": "trained_on"}
    assert "'no-such-dataset' is not a dataset in Loupe" in response.json()["message"]
    assert counts() == before


def test_a_dry_run_writes_no_system(researcher):
    before = counts()
    response = post(researcher, ONE, trained_on="toy-train", dry_run="true")
    assert response.status_code == 200, response.content
    assert counts() == before


def _command(tmp_path, *args):
    path = tmp_path / "out.jsonl"
    path.write_bytes(ONE)
    out, err = io.StringIO(), io.StringIO()
    call_command("import_outputs", "--dataset", "demo", *args, str(path), stdout=out, stderr=err)
    return out.getvalue()


def test_the_command_sets_and_checks_trained_on(tmp_path):
    _command(tmp_path, "--system", "cli-abs", "--kind", "abstractive", "--trained-on", "toy-train")
    assert System.objects.get(slug="cli-abs").trained_on == "toy-train"
    before = counts()
    with pytest.raises(CommandError, match="registered as trained on 'toy-train', not 'demo'"):
        _command(tmp_path, "--system", "cli-abs", "--trained-on", "demo")
    assert counts() == before
    _command(tmp_path, "--system", "cli-abs", "--trained-on", "toy-train")
    assert counts()[1] == before[1] + 1
