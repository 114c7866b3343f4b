"""``asr batch`` reading and writing an object store through fsspec, against a real
S3-compatible server on 127.0.0.1 (moto's server mode, started here; s3fs as the client):
outputs written, a re-run converting nothing, a conversion that raises midway leaving no
object."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson
import pytest
from test_batch import batch, corpus, outputs, register_toy, toy_file

from asr_adapters import registry
from asr_adapters.batch.remote import COMPANIONS_NOT_FETCHED, STAGING
from asr_adapters.batch.scan import TEMP_NAME

pytestmark = pytest.mark.services

BUCKET = "asr-test"


@pytest.fixture
def toy() -> Iterator[None]:
    register_toy()
    yield
    registry._ADAPTERS.pop("toy", None)


def _loopback_works() -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", 0))
        except OSError:
            return False
    return True


@pytest.fixture(scope="module")
def s3() -> Iterator[Any]:
    """A moto S3 server on a free port of 127.0.0.1 for the module, with one bucket; fsspec
    configured to reach it (forked pool workers inherit the configuration)."""
    try:
        import fsspec
        import s3fs
        from moto.server import ThreadedMotoServer
    except ImportError as exc:
        pytest.skip(f"the S3 test server needs moto, flask and s3fs (pip install -e '.[test-services]'): {exc}")
    if not _loopback_works():
        pytest.skip("no loopback interface to run moto's S3 server on")
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    try:
        server.start()
    except Exception as exc:
        pytest.skip(f"moto's S3 server could not start on 127.0.0.1: {exc}")
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    credentials = {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    saved_env = {name: os.environ.get(name) for name in credentials}
    saved_conf = fsspec.config.conf.get("s3")
    os.environ.update(credentials)
    fsspec.config.conf["s3"] = {"endpoint_url": endpoint}
    try:
        fs = s3fs.S3FileSystem(endpoint_url=endpoint, key="testing", secret="testing")
        fs.mkdir(BUCKET)
        yield fs
    finally:
        if saved_conf is None:
            fsspec.config.conf.pop("s3", None)
        else:
            fsspec.config.conf["s3"] = saved_conf
        for name, value in saved_env.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        server.stop()


def objects(fs: Any, prefix: str) -> dict[str, bytes]:
    """Every object under ``s3://BUCKET/prefix`` by its name relative to it."""
    fs.invalidate_cache()
    base = f"{BUCKET}/{prefix}"
    return {path[len(base) + 1 :]: fs.cat_file(path) for path in sorted(fs.find(base))}


def test_s3_sources_to_s3_outputs_then_an_incremental_rerun_converts_nothing(
    toy: None, s3: Any, tmp_path: Path
) -> None:
    src = corpus(tmp_path / "src")
    reference = batch([src], tmp_path / "reference", jobs=1)
    s3.put(str(src) + "/", f"{BUCKET}/one/src/", recursive=True)
    source, out = f"s3://{BUCKET}/one/src", f"s3://{BUCKET}/one/out/"
    first = batch([source], out, jobs=2)
    varying = {"seconds": 0, "outdir": "", "errors_file": "", "roots": [], "warnings": 0}
    varying |= {"unclaimed_files": [], "warnings_in_errors_file": 0}  # URLs, not paths; companions' warnings
    assert first.as_dict() | varying == reference.as_dict() | varying  # the same summary as from disk
    assert sorted(row["reason"] for row in first.unclaimed_files) == sorted(
        r["reason"] for r in reference.unclaimed_files
    )
    # but for one warning a source: the toy adapter reads companion files, which are not fetched
    assert first.warnings == reference.warnings + first.converted
    rows = [orjson.loads(line) for line in objects(s3, "one/out")["_errors.jsonl"].splitlines()]
    assert sum(row["reason"] == COMPANIONS_NOT_FETCHED for row in rows) == first.converted
    assert first.outdir == out.rstrip("/") and first.roots == [source]
    stored = objects(s3, "one/out")
    assert {k: v for k, v in stored.items() if k.endswith(".asr.jsonl")} == outputs(tmp_path / "reference")
    assert not [name for name in stored if name.startswith(STAGING)]  # every staged upload committed
    manifest = orjson.loads(stored["_manifest.json"])["sources"]
    assert all(key.startswith(f"{source}/") and entry["etag"] for key, entry in manifest.items())
    rows = [orjson.loads(line) for line in stored["_errors.jsonl"].splitlines()]
    assert f"{source}/b/bad-line.jsonl" in {row["path"] for row in rows}  # its warnings, named by URL

    again = batch([source], out, jobs=2)
    assert (again.converted, again.skipped, again.failed) == (0, reference.converted, 0)
    assert objects(s3, "one/out") == stored

    toy_file(src / "a" / "one.jsonl", "s1", {"say": "changed"})  # a changed object is converted again
    s3.put_file(str(src / "a" / "one.jsonl"), f"{BUCKET}/one/src/a/one.jsonl")
    s3.rm_file(f"{BUCKET}/one/src/b/c/deep.jsonl")  # and a deleted one is gone from the manifest
    third = batch([source], out, jobs=1)
    assert (third.converted, third.gone) == (1, 1)
    assert objects(s3, "one/out")["toy/s1.asr.jsonl"] != stored["toy/s1.asr.jsonl"]

    single = batch([f"{source}/a/two.jsonl"], f"s3://{BUCKET}/one/single", jobs=1)  # one object, named
    assert single.converted == 1 and "toy/s2.asr.jsonl" in objects(s3, "one/single")


def test_a_conversion_that_raises_midway_leaves_no_object(toy: None, s3: Any, tmp_path: Path) -> None:
    src = tmp_path / "src"
    toy_file(src / "good.jsonl", "good", {"say": "fine"})
    # the main stream is half written to its spool file when the adapter raises; its child never starts
    toy_file(src / "broken.jsonl", "broken", *[{"say": "x" * 200}] * 50, {"child": "kid", "says": ["k"]}, {"fail": "x"})
    out = f"s3://{BUCKET}/two/out"
    summary = batch([src], out, jobs=1)
    assert (summary.converted, summary.failed) == (1, 1)
    stored = objects(s3, "two/out")
    assert sorted(stored) == ["_errors.jsonl", "_manifest.json", "toy/good.asr.jsonl"]
    assert summary.exit_code == 1


def test_file_urls_are_local_paths_and_keep_os_replace(toy: None, tmp_path: Path) -> None:
    src = corpus(tmp_path / "src")
    reference = batch([src], tmp_path / "reference", jobs=1)
    through_urls = batch([f"file://{src}"], f"file://{tmp_path / 'out'}", jobs=1)
    assert through_urls.outdir == str(tmp_path / "out") and through_urls.converted == reference.converted
    assert outputs(tmp_path / "out") == outputs(tmp_path / "reference")
    assert (tmp_path / "out" / "_batch.lock").exists()  # a local folder: locked, renamed into place


def test_objects_with_a_batch_temporary_name_are_counted_not_silently_skipped(
    toy: None, s3: Any, tmp_path: Path
) -> None:
    """Issue 25.22: an object under ``.asr-tmp/`` (another batch's staging folder) or named
    ``.asr-tmp-…`` is not converted, and the summary says so with its reason."""
    src = tmp_path / "src"
    toy_file(src / "good.jsonl", "good", {"say": "fine"})
    for name in (f"{STAGING}/staged.jsonl", f"a/{STAGING}-123.jsonl"):
        toy_file(src / name, "staged", {"say": "in flight"})
    s3.put(str(src) + "/", f"{BUCKET}/three/src/", recursive=True)
    summary = batch([f"s3://{BUCKET}/three/src"], f"s3://{BUCKET}/three/out", jobs=1)
    assert (summary.converted, summary.unclaimed) == (1, 2)
    assert summary.unclaimed_reasons == {TEMP_NAME: 2}
    assert f"2 files not converted (2 {TEMP_NAME})" in summary.describe()
    rows = [orjson.loads(line) for line in objects(s3, "three/out")["_errors.jsonl"].splitlines()]
    assert sorted(row["path"] for row in rows if row["reason"] == TEMP_NAME) == [
        f"s3://{BUCKET}/three/src/{STAGING}/staged.jsonl",
        f"s3://{BUCKET}/three/src/a/{STAGING}-123.jsonl",
    ]


def test_an_edited_manifest_never_makes_batch_delete_another_sessions_object(
    toy: None, s3: Any, tmp_path: Path
) -> None:
    """Issue 25.3 on an object store: a stale output is removed only when its own header says
    it came from this source (read with a ranged GET)."""
    src = tmp_path / "src"
    toy_file(src / "a-one.jsonl", "s1", {"say": "hi"})
    toy_file(src / "b-two.jsonl", "s2", {"say": "archive me"})
    s3.put(str(src) + "/", f"{BUCKET}/four/src/", recursive=True)
    source, out = f"s3://{BUCKET}/four/src", f"s3://{BUCKET}/four/out"
    batch([source], out, jobs=1)
    kept = objects(s3, "four/out")["toy/s2.asr.jsonl"]
    s3.rm_file(f"{BUCKET}/four/src/b-two.jsonl")
    manifest = orjson.loads(objects(s3, "four/out")["_manifest.json"])
    manifest["sources"][f"{source}/a-one.jsonl"]["outputs"].append("toy/s2.asr.jsonl")
    del manifest["sources"][f"{source}/b-two.jsonl"]
    s3.pipe_file(f"{BUCKET}/four/out/_manifest.json", orjson.dumps(manifest))
    toy_file(src / "a-one.jsonl", "s1-renamed", {"say": "changed"})
    s3.put_file(str(src / "a-one.jsonl"), f"{BUCKET}/four/src/a-one.jsonl")
    assert batch([source], out, jobs=1).failed == 0
    stored = objects(s3, "four/out")
    assert stored["toy/s2.asr.jsonl"] == kept
    assert "toy/s1.asr.jsonl" not in stored and "toy/s1-renamed.asr.jsonl" in stored
