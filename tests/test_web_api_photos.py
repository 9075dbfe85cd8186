"""Photos and scans through the API: uploads good and bad, stored photo and annotation.

A fake recognizer in config covers the API mechanics; one test runs the real
`Recognizer` (stand-in ONNX models made at test time, or the trained ones when
`MUS_MODEL_DIR` holds them).
"""

from __future__ import annotations

import io
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from web import create_app

pytestmark = pytest.mark.webapi  # `-k web` selects the backend's tests too

sys.path.insert(0, str(Path(__file__).parent))
from vision_helpers import write_fake_models  # noqa: E402

DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]


class FakeRecognizer:
    """Says the same 16 cards for any photo; remembers what it was asked."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple[int, int], int]] = []

    def scan(self, image: Image.Image, bottom: int = 0) -> dict[str, Any]:
        self.calls.append((image.size, bottom))
        cards = [{"card": c, "conf": 0.97, "box": [10 * i, 5, 10 * i + 8, 20], "seat": s}
                 for s, hand in enumerate(DEAL) for i, c in enumerate(hand)]
        return {"cards": cards, "hands": DEAL, "warnings": [], "size": list(image.size)}


def photo_bytes(fmt: str = "JPEG", size: tuple[int, int] = (96, 72), colour=(30, 120, 60)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, colour).save(buf, fmt)
    return buf.getvalue()


@pytest.fixture()
def rec() -> FakeRecognizer:
    return FakeRecognizer()


@pytest.fixture()
def app(tmp_path, rec):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": rec})


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture()
def table(client) -> dict[str, Any]:
    t = client.post("/api/tables", json={}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return t


def snapshot(app, client, t) -> tuple[str, dict[str, int]]:
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    return json.dumps(s, sort_keys=True), app.extensions["mus_store"].counts(t["id"])


def assert_error(r, status: int, code: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, (r.status_code, r.data[:300])
    err = r.json["error"]
    assert set(err) == {"status", "code", "message", "field"} and err["status"] == status and err["message"]
    if code:
        assert err["code"] == code, err
    return err


def test_multipart_upload_stores_photo_and_annotation(client, table, rec) -> None:
    data = photo_bytes()
    r = client.post(f"/api/tables/{table['id']}/photos?bottom=2", headers=table["auth"],
                    data={"photo": (io.BytesIO(data), "showdown.jpg")}, content_type="multipart/form-data")
    assert r.status_code == 201, r.json
    out = r.json
    assert out["scan"]["hands"] == DEAL and len(out["scan"]["cards"]) == 16
    assert rec.calls == [((96, 72), 2)]
    assert out["scan"]["bottom"] == 2  # kept with the photo, for its labels' seats (export-photos)
    got = client.get(out["url"], headers=table["auth"])
    assert got.status_code == 200 and got.data == data and got.mimetype == "image/jpeg"
    ann = client.get(f"{out['annotated_url']}?token={table['watch_token']}")
    assert ann.status_code == 200 and ann.mimetype == "image/jpeg"
    assert Image.open(io.BytesIO(ann.data)).size == (96, 72)
    # a photo is not a table change: the version stays
    assert client.get(f"/api/tables/{table['id']}", headers=table["auth"]).json["version"] == table["version"]


def test_raw_body_upload_png(client, table) -> None:
    r = client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"], data=photo_bytes("PNG"),
                    content_type="image/png")
    assert r.status_code == 201
    got = client.get(r.json["url"], headers=table["auth"])
    assert got.mimetype == "image/png"


def test_photo_retry_with_client_id_stores_once(app, client, table, rec) -> None:
    url = f"/api/tables/{table['id']}/photos?client_id=p1"
    r1 = client.post(url, headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
    r2 = client.post(url, headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
    assert r1.json["photo_id"] == r2.json["photo_id"] and r1.json == r2.json
    assert app.extensions["mus_store"].counts(table["id"])["photos"] == 1
    assert len(rec.calls) == 1  # the retry is not read again
    # another photo under the same client_id is not taken for a retry
    r3 = client.post(url, headers=table["auth"], data=photo_bytes("PNG"), content_type="image/png")
    assert (r3.status_code, r3.json["error"]["code"], r3.json["error"]["field"]) == (409, "client_id_reused",
                                                                                     "client_id")
    s = client.get(f"/api/tables/{table['id']}", headers=table["auth"]).json
    r4 = client.post(f"/api/tables/{table['id']}/actions", headers=table["auth"],
                     json={"client_id": "p1", "version": s["version"], "action": s["current"]["legal"][0]})
    assert (r4.status_code, r4.json["error"]["code"]) == (409, "client_id_reused")
    assert app.extensions["mus_store"].counts(table["id"])["photos"] == 1 and len(rec.calls) == 1


def test_a_retry_with_another_bottom_is_another_upload(app, client, table, rec) -> None:
    # the seats of a photo's cards follow from its bottom: sent again with another, it is not a retry
    url = f"/api/tables/{table['id']}/photos?client_id=p1"
    first = client.post(url + "&bottom=2", headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
    again = client.post(url + "&bottom=2", headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
    assert first.status_code == again.status_code == 201 and again.json == first.json
    other = client.post(url + "&bottom=1", headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
    assert (other.status_code, other.json["error"]["code"]) == (409, "client_id_reused")
    assert [b for _, b in rec.calls] == [2]
    # a digest without a bottom is the one stored before bottom counted: bottom 0 retries as before
    from scorer.storage.tables import _digest, photo_digest

    assert photo_digest(b"x", None) == photo_digest(b"x", None, 0) == _digest("photo", [
        "2d711642b726b04401627ca9fbac32f5c8530fb1903cc4db02258717921a4881", None])


def test_a_retry_whose_photo_was_dropped_since_answers_as_stored(tmp_path) -> None:
    from scorer.storage.tables import MAX_LOOSE

    app, client, t, _ = _two_reads_app(tmp_path)
    first = _upload(client, t, "?client_id=first")
    for _ in range(MAX_LOOSE):  # newer showdowns push it out
        assert _upload(client, t).status_code == 201
    assert client.get(first.json["url"], headers=t["auth"]).status_code == 404
    again = _upload(client, t, "?client_id=first")
    assert again.status_code == 201 and again.json == first.json, again.json


def test_an_empty_client_id_is_refused_from_the_query_as_from_the_form(app, client, table, rec) -> None:
    """`?client_id=` empty was left out (the photo stored with no retry key, 201), while an
    empty form field was a 400: both are refused, naming client_id, before the photo is read;
    the document bounds it as the server does (1 to 100 characters)."""
    url = f"/api/tables/{table['id']}/photos"
    before, calls = snapshot(app, client, table), len(rec.calls)
    for query, form in (("?client_id=", None), ("", ""), ("?client_id=", "form-cid"), ("?client_id=" + "c" * 101, None)):
        data = {"photo": (io.BytesIO(photo_bytes()), "p.jpg")} | ({"client_id": form} if form is not None else {})
        err = assert_error(client.post(url + query, headers=table["auth"], content_type="multipart/form-data",
                                       data=data), 400, "invalid")
        assert err["field"] == "client_id" and err["message"].startswith("client_id: "), (query, form, err)
        if query:  # the raw image alike
            r = client.post(url + query, headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
            assert assert_error(r, 400, "invalid")["field"] == "client_id"
    assert snapshot(app, client, table) == before and len(rec.calls) == calls
    r = client.post(url + "?client_id=" + "c" * 100, headers=table["auth"], data=photo_bytes(), content_type="image/jpeg")
    assert r.status_code == 201
    doc = client.get("/api/openapi.json").json
    op = doc["paths"]["/api/tables/{table_id}/photos"]["post"]
    query = next(p for p in op["parameters"] if p["name"] == "client_id")
    form = op["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]["client_id"]
    into = next(p for p in doc["paths"]["/api/tables/{table_id}/import"]["post"]["parameters"]
                if p["name"] == "client_id")
    for schema in (query["schema"], form, into["schema"], doc["components"]["schemas"]["Write"]["properties"]["client_id"]):
        assert (schema["type"], schema["minLength"], schema["maxLength"]) == ("string", 1, 100)


def gif() -> bytes:
    buf = io.BytesIO()
    Image.new("P", (8, 8)).save(buf, "GIF")
    return buf.getvalue()


HEIC = b"\x00\x00\x00\x18ftypheic\x00\x00\x00\x00mif1heic" + b"\x00" * 64


@pytest.mark.parametrize(
    "data, status, code",
    [
        (b"", 400, "empty_image"),
        (b"hello, this is not a photo", 415, "not_image"),
        (gif(), 415, "unsupported_format"),
        (HEIC, 415, "unsupported_format"),
        (photo_bytes()[:200], 400, "corrupt_image"),
        (b"\xff\xd8\xff\xe0" + b"\x00" * 100, 400, "corrupt_image"),
    ],
)
def test_bad_uploads_are_clear_and_change_nothing(app, client, table, rec, data, status, code) -> None:
    before = snapshot(app, client, table)
    url = f"/api/tables/{table['id']}/photos"
    err = assert_error(client.post(url, headers=table["auth"], data=data, content_type="application/octet-stream"),
                       status, code)
    assert err["field"] == "photo"
    err = assert_error(client.post(url, headers=table["auth"], data={"photo": (io.BytesIO(data), "x.bin")},
                                   content_type="multipart/form-data"), status, code)
    assert_error(client.post("/api/scan", data=data, content_type="application/octet-stream"), status, code)
    assert rec.calls == []
    assert snapshot(app, client, table) == before


def test_multipart_without_photo_field(app, client, table) -> None:
    before = snapshot(app, client, table)
    r = client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"],
                    data={"picture": (io.BytesIO(photo_bytes()), "x.jpg")}, content_type="multipart/form-data")
    assert assert_error(r, 400, "missing_photo")["field"] == "photo"
    assert snapshot(app, client, table) == before


def test_bad_bottom(client, table) -> None:
    r = client.post(f"/api/tables/{table['id']}/photos?bottom=5", headers=table["auth"], data=photo_bytes())
    assert assert_error(r, 400, "invalid")["field"] == "bottom"


def test_a_multipart_upload_takes_its_bottom_form_field(app, client, table, rec) -> None:
    # the table page sends the seat as a form field and in the query; a form field alone was ignored (0)
    url = f"/api/tables/{table['id']}/photos"

    def post(query: str = "", **form: str) -> Any:
        return client.post(url + query, headers=table["auth"], content_type="multipart/form-data",
                           data={"photo": (io.BytesIO(photo_bytes()), "p.jpg"), **form})

    r = post(bottom="2", client_id="form-cid")
    assert r.status_code == 201 and r.json["scan"]["bottom"] == 2 and rec.calls[-1][1] == 2
    r = post("?bottom=3&client_id=page-cid", bottom="3")  # as the page sends it
    assert r.status_code == 201 and r.json["scan"]["bottom"] == 3 and rec.calls[-1][1] == 3
    assert post().json["scan"]["bottom"] == 0
    before, calls = snapshot(app, client, table), len(rec.calls)
    for query, form, said in (("", "9", 'got "9"'), ("", "", 'got ""'), ("?bottom=1", "2", "the query says 1"),
                              ("?bottom=1", "x", 'got "x" in the form field')):
        err = assert_error(post(query, bottom=form), 400, "invalid")
        assert err["field"] == "bottom" and said in err["message"], err
    assert snapshot(app, client, table) == before and len(rec.calls) == calls
    r = client.post("/api/scan", content_type="multipart/form-data",
                    data={"photo": (io.BytesIO(photo_bytes()), "p.jpg"), "bottom": "1"})
    assert r.status_code == 200 and r.json["bottom"] == 1 and rec.calls[-1][1] == 1


def test_an_upload_reads_its_bottom_once(app, client, table, rec, monkeypatch) -> None:
    """`bottom` is read and checked once per upload, a retry's (its digest) as any other's,
    and that one value is what the photo is read with and kept with."""
    from web import api

    reads: list[str] = []
    real = api._bottom

    def counted() -> str:
        reads.append(real())
        return reads[-1]

    monkeypatch.setattr(api, "_bottom", counted)
    url = f"/api/tables/{table['id']}/photos"
    for query, form in (("?bottom=2&client_id=q", {}), ("?bottom=3", {}), ("?client_id=f", {"bottom": "1"}),
                        ("?bottom=1&client_id=b", {"bottom": "1"}), ("", {})):
        reads.clear()
        r = client.post(url + query, headers=table["auth"], content_type="multipart/form-data",
                        data={"photo": (io.BytesIO(photo_bytes()), "p.jpg"), **form})
        assert r.status_code == 201, r.json
        assert len(reads) == 1 and r.json["scan"]["bottom"] == rec.calls[-1][1] == int(reads[0]), (query, reads)
    reads.clear()
    again = client.post(url + "?bottom=2&client_id=q", headers=table["auth"], content_type="multipart/form-data",
                        data={"photo": (io.BytesIO(photo_bytes()), "p.jpg")})  # a retry: answered as stored
    assert again.status_code == 201 and again.json["scan"]["bottom"] == 2 and len(reads) == 1
    reads.clear()
    r = client.post("/api/scan?bottom=3", data=photo_bytes(), content_type="image/jpeg")
    assert r.status_code == 200 and r.json["bottom"] == 3 and len(reads) == 1
    # refused as before, with or without a client_id
    for query in ("?bottom=4&client_id=bad", "?bottom=4"):
        err = assert_error(client.post(url + query, headers=table["auth"], data=photo_bytes(),
                                       content_type="image/jpeg"), 400, "invalid")
        assert err["field"] == "bottom" and 'got "4"' in err["message"]


def test_too_large_upload_is_413(tmp_path, rec) -> None:
    app = create_app({"DATABASE": str(tmp_path / "m.db"), "TESTING": True, "RECOGNIZER": rec,
                      "MAX_CONTENT_LENGTH": 10_000})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    auth = {"Authorization": f"Bearer {t['token']}"}
    big = photo_bytes() + b"\x00" * 20_000
    before = app.extensions["mus_store"].counts(t["id"])
    assert_error(c.post(f"/api/tables/{t['id']}/photos", headers=auth, data=big, content_type="image/jpeg"), 413,
                 "too_large")
    assert_error(c.post(f"/api/tables/{t['id']}/photos", headers=auth, data={"photo": (io.BytesIO(big), "b.jpg")},
                        content_type="multipart/form-data"), 413, "too_large")
    assert_error(c.post("/api/scan", data=big, content_type="image/jpeg"), 413, "too_large")
    # a photo past the limit by more than the form's room: refused before its body is read, as the
    # contract says, on `photo`, naming its size (the upload's length)
    huge = photo_bytes() + b"\x00" * 200_000
    for url in (f"/api/tables/{t['id']}/photos", "/api/scan"):
        err = assert_error(c.post(url, headers=auth, data={"photo": (io.BytesIO(huge), "b.jpg")},
                                  content_type="multipart/form-data"), 413, "too_large")
        assert err["field"] == "photo", err
        assert err["message"].startswith("the photo is about 20") and "over the limit of 10,000 bytes" in err["message"]
    assert rec.calls == [] and app.extensions["mus_store"].counts(t["id"]) == before


def _photo_of(size: int) -> bytes:
    """A JPEG photo of exactly `size` bytes: a small one, padding after its end (EOI)."""
    data = photo_bytes()
    return data + b"\0" * (size - len(data))


def test_a_photo_at_the_25_mb_limit_is_taken_in_a_multipart_upload(tmp_path, rec) -> None:
    # the multipart envelope counted against the photo's limit: a photo 10 bytes under it was a 413
    limit = 25 * 1024 * 1024
    app = create_app({"DATABASE": str(tmp_path / "m.db"), "TESTING": True, "RECOGNIZER": rec,
                      "PHOTO_MIN_FREE_BYTES": 0})
    assert app.config["MAX_CONTENT_LENGTH"] == limit
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    auth = {"Authorization": f"Bearer {t['token']}"}
    at = _photo_of(limit)

    def upload(data: bytes, url: str = f"/api/tables/{t['id']}/photos") -> Any:
        return c.post(url, headers=auth, content_type="multipart/form-data",
                      data={"photo": (io.BytesIO(data), "big.jpg"), "client_id": "c" * 40, "bottom": "1"})

    r = upload(at)
    assert r.status_code == 201, r.json
    assert c.get(r.json["url"], headers=auth).data == at  # kept whole
    assert upload(at, "/api/scan").status_code == 200
    assert c.post("/api/scan", data=at, content_type="image/jpeg").status_code == 200  # the raw body too
    calls, before = len(rec.calls), app.extensions["mus_store"].counts(t["id"])
    for url in (f"/api/tables/{t['id']}/photos", "/api/scan"):
        err = assert_error(upload(at + b"\0", url), 413, "too_large")
        assert err["field"] == "photo"
        assert err["message"] == "the photo is 26,214,401 bytes, over the limit of 26,214,400 bytes (25 MB)"
    assert_error(c.post("/api/scan", data=at + b"\0", content_type="image/jpeg"), 413, "too_large")
    assert len(rec.calls) == calls and app.extensions["mus_store"].counts(t["id"]) == before


def test_photo_routes_need_the_token(app, client, table) -> None:
    before = snapshot(app, client, table)
    assert_error(client.post(f"/api/tables/{table['id']}/photos", data=photo_bytes()), 401, "missing_token")
    pid = client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"], data=photo_bytes()).json["photo_id"]
    assert_error(client.get(f"/api/tables/{table['id']}/photos/{pid}"), 401)
    other = client.post("/api/tables", json={}).json
    # a photo is only reachable through its own table
    assert_error(client.get(f"/api/tables/{other['id']}/photos/{pid}?token={other['token']}"), 404, "not_found")
    assert snapshot(app, client, table)[1]["photos"] == before[1]["photos"] + 1


def test_scan_answers_the_scan_object(client, rec) -> None:
    r = client.post("/api/scan?bottom=1", data=photo_bytes(), content_type="image/jpeg")
    assert r.status_code == 200
    assert set(r.json) >= {"cards", "hands", "warnings", "size"} and r.json["size"] == [96, 72]
    assert rec.calls == [((96, 72), 1)]


def _to_showdown(client, table: dict) -> dict:
    """The table's state once its hand is played (first legal action each turn) to the showdown."""
    s = client.get(f"/api/tables/{table['id']}", headers=table["auth"]).json
    for i in range(80):
        if s["current"]["phase"] in ("showdown", "over"):
            break
        s = client.post(f"/api/tables/{table['id']}/actions", headers=table["auth"],
                        json={"client_id": f"a{i}", "version": s["version"], "action": s["current"]["legal"][0]}).json
    return s


def test_showdown_with_photo_keeps_its_id(client, table) -> None:
    pid = client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"], data=photo_bytes()).json["photo_id"]
    s = _to_showdown(client, table)
    r = client.post(f"/api/tables/{table['id']}/showdown", headers=table["auth"],
                    json={"client_id": "sd", "version": s["version"], "hands": DEAL, "photo_id": pid})
    assert r.status_code == 200, r.json
    assert r.json["hands"][0]["photo_id"] == pid


def _showdown_photo() -> tuple[bytes, tuple[int, int]]:
    """A rendered showdown (`datasets.render`) if available, else a plain image."""
    try:
        import numpy as np

        from datasets import render
    except ImportError:
        return photo_bytes(size=(320, 240)), (320, 240)
    scene = render.render_scene(np.random.default_rng(7), kind="table", size=(1200, 900), bottom=0,
                                distractors=False, effects=False)
    buf = io.BytesIO()
    scene.image.convert("RGB").save(buf, "JPEG", quality=90)
    return buf.getvalue(), (1200, 900)


def test_real_recognizer_through_the_api(tmp_path) -> None:
    """The real `Recognizer` on the shipped models (or MUS_MODEL_DIR's); stand-in models where none."""
    from scorer.vision import default_model_dir

    model_dir = os.environ.get("MUS_MODEL_DIR") or str(default_model_dir())
    trained = (Path(model_dir) / "cards-det.onnx").exists()
    if trained:
        data, size = _showdown_photo()
    else:
        model_dir = str(write_fake_models(tmp_path / "models", [(0, 100, 60, 160, 150, 0.9)], card="12o"))
        data, size = photo_bytes(size=(320, 240)), (320, 240)
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "MODEL_DIR": model_dir})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    r = c.post(f"/api/tables/{t['id']}/photos?token={t['token']}", data=data, content_type="image/jpeg")
    assert r.status_code == 201, r.json
    scan = r.json["scan"]
    assert set(scan) >= {"cards", "hands", "warnings", "size"} and scan["size"] == list(size)
    for card in scan["cards"]:
        assert set(card) >= {"card", "conf", "box", "seat"}
    if trained:  # a showdown of 16 cards: a usable model reads most of them
        assert len(scan["cards"]) >= 8 and scan["hands"] is not None
    ann = c.get(f"/api/tables/{t['id']}/photos/{r.json['photo_id']}/annotated?token={t['token']}")
    assert ann.status_code == 200 and ann.data[:3] == b"\xff\xd8\xff"
    assert Image.open(io.BytesIO(ann.data)).size == size
    r2 = c.post("/api/scan", data=data, content_type="image/jpeg")
    assert r2.status_code == 200 and r2.json["size"] == list(size)


def test_a_big_photo_is_kept_whole_and_its_annotated_copy_shrunk(client, table, rec) -> None:
    from web.api import ANNOTATED_SIDE

    buf = io.BytesIO()
    Image.new("RGB", (3000, 2250), (30, 110, 60)).save(buf, "JPEG", quality=80)
    r = client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"], data=buf.getvalue(),
                    content_type="image/jpeg")
    assert r.status_code == 201, r.json
    assert client.get(r.json["url"], headers=table["auth"]).data == buf.getvalue()
    ann = Image.open(io.BytesIO(client.get(r.json["annotated_url"], headers=table["auth"]).data))
    assert ann.size == (ANNOTATED_SIDE, round(2250 * ANNOTATED_SIDE / 3000))


# -- more photos of one showdown, read together -------------------------------
def _two_reads_app(tmp_path):
    """A reader that cannot name 4o in the first photo, 3b in the others; 2c is unsure in the first."""
    from web.testing import FakeRecognizer as Reader

    reader = Reader(DEAL, low_conf={"2c"}, unread={"4o"}, later=[{"unread": {"3b"}}] * 5)
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader})
    client = app.test_client()
    t = client.post("/api/tables", json={}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    return app, client, t, reader


def _upload(client, t, query: str = "", form: dict[str, str] | None = None):
    from web.testing import showdown_photo

    data = {"photo": (io.BytesIO(showdown_photo(DEAL)), "showdown.jpg"), **(form or {})}
    return client.post(f"/api/tables/{t['id']}/photos{query}", headers=t["auth"], data=data,
                       content_type="multipart/form-data")


def test_a_second_photo_is_read_together_with_the_first(tmp_path) -> None:
    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json
    assert "together" not in first and sum(map(len, first["scan"]["hands"])) == 15
    r = _upload(client, t, f"?with={first['photo_id']}")
    assert r.status_code == 201, r.json
    second = r.json
    # its own read is kept as it was (for its annotated copy and its label)
    assert "4o" in second["scan"]["hands"][0] and "3b" not in second["scan"]["hands"][3]
    together = second["together"]
    assert together["photo_ids"] == [first["photo_id"], second["photo_id"]]
    scan = together["scan"]
    assert scan["photos"] == 2 and [sorted(h) for h in scan["hands"]] == [sorted(h) for h in DEAL]
    by_name = {c["card"]: c for c in scan["cards"]}
    assert by_name["4o"]["photo"] == 1 and by_name["3b"]["photo"] == 0  # each from the photo that read it
    assert by_name["2c"]["photo"] == 1 and by_name["2c"]["conf"] > 0.9  # the surer read wins
    assert not any(w["code"] == "low_confidence" for w in scan["warnings"])
    # a third photo may name any photo of the showdown; the set stays in order
    third = _upload(client, t, "", {"with": second["photo_id"]}).json
    assert third["together"]["photo_ids"] == [first["photo_id"], second["photo_id"], third["photo_id"]]
    assert reader.calls == 3


def test_with_a_photo_not_at_this_table_is_refused_before_reading(tmp_path) -> None:
    app, client, t, reader = _two_reads_app(tmp_path)
    other = client.post("/api/tables", json={}).json
    theirs = client.post(f"/api/tables/{other['id']}/photos", headers={"Authorization": f"Bearer {other['token']}"},
                         data=photo_bytes(), content_type="image/jpeg").json["photo_id"]
    before = snapshot(app, client, t)
    calls = reader.calls
    for bad in (theirs, "nope", ""):
        err = assert_error(_upload(client, t, f"?with={bad}"), 422, "invalid")
        assert err["field"] == "with" and f'"{bad}"' in err["message"]
    assert snapshot(app, client, t) == before and reader.calls == calls


def test_the_document_says_an_empty_with_is_refused_as_the_server_does(tmp_path) -> None:
    """`with`, as a query or a form field, is at least 1 character in the document (minLength
    1): an empty one, from either, is a 422 invalid on `with`, before the photo is read."""
    app, client, t, reader = _two_reads_app(tmp_path)
    doc = client.get("/api/openapi.json").json["paths"]["/api/tables/{table_id}/photos"]["post"]
    query = next(p for p in doc["parameters"] if p["name"] == "with")
    form = doc["requestBody"]["content"]["multipart/form-data"]["schema"]["properties"]["with"]
    for schema in (query["schema"], form):
        assert schema["type"] == "string" and schema["minLength"] == 1
    first = _upload(client, t).json["photo_id"]
    before, calls = snapshot(app, client, t), reader.calls
    for query, form in (("?with=", None), ("", {"with": ""}), ("?with=&client_id=c1", None),
                        ("?client_id=c2", {"with": ""})):
        err = assert_error(_upload(client, t, query, form), 422, "invalid")
        assert err["field"] == "with", (query, form, err)
    assert snapshot(app, client, t) == before and reader.calls == calls
    assert _upload(client, t, "", {"with": first}).status_code == 201


def test_a_showdown_is_read_from_four_photos_at_most(tmp_path) -> None:
    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    for _ in range(3):
        assert _upload(client, t, f"?with={first}").status_code == 201
    before = snapshot(app, client, t)
    err = assert_error(_upload(client, t, f"?with={first}"), 422, "too_many_photos")
    assert err["field"] == "with" and "4 photos" in err["message"]
    assert snapshot(app, client, t) == before and reader.calls == 4


def test_a_retried_second_photo_is_stored_once_and_read_together_again(tmp_path) -> None:
    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    a = _upload(client, t, f"?with={first}&client_id=again").json
    b = _upload(client, t, f"?with={first}&client_id=again").json
    assert a == b and reader.calls == 2
    assert app.extensions["mus_store"].counts(t["id"])["photos"] == 2


def test_the_hand_cites_the_first_photo_of_its_showdown(tmp_path) -> None:
    app, client, t, _ = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    second = _upload(client, t, f"?with={first}").json["photo_id"]
    s = _to_showdown(client, t)
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd", "version": s["version"], "hands": DEAL, "photo_id": second})
    assert r.status_code == 200, r.json
    assert r.json["hands"][0]["photo_id"] == first
    # both photos are labelled with the settled cards, each with its own read
    from scorer.storage.photos import labelled_photos

    labels = list(labelled_photos(app.extensions["mus_store"].db))
    assert [p.photo_id for p in labels] == [first, second]
    assert all(p.hands == DEAL for p in labels)
    assert "4o" not in labels[0].read[0] and "4o" in labels[1].read[0]


def test_no_photo_joins_a_showdown_already_settled(tmp_path) -> None:
    app, client, t, _ = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    s = _to_showdown(client, t)
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd", "version": s["version"], "hands": DEAL, "photo_id": first})
    assert r.status_code == 200, r.json
    before = app.extensions["mus_store"].counts(t["id"])
    late = _upload(client, t, f"?with={first}")  # a stale phone adds to the settled showdown
    err = assert_error(late, 409, "showdown_settled")
    assert "settled already (hand 1)" in err["message"] and err["field"] == "with"
    assert app.extensions["mus_store"].counts(t["id"]) == before  # nothing stored
    from scorer.storage.photos import labelled_photos

    assert [p.photo_id for p in labelled_photos(app.extensions["mus_store"].db)] == [first]
    assert _upload(client, t).status_code == 201  # a photo of its own starts the next showdown


def _played(client, t) -> dict:
    """The table's state once its current hand is played to the showdown (each write its own client_id)."""
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    while s["current"]["phase"] not in ("showdown", "over"):
        s = _post(client, t, "actions", action=s["current"]["legal"][0]).json
    return s


def test_a_photo_taken_for_an_earlier_hand_is_not_a_later_hands(tmp_path) -> None:
    """A photo no hand cites is still of the showdown it was taken at: a hand settled after
    it (typed, from another phone) leaves it that hand's, not the next one's; undone, that
    hand may cite it again."""
    app, client, t, reader = _two_reads_app(tmp_path)
    early = _upload(client, t).json["photo_id"]  # taken during hand 1's betting
    s = _played(client, t)
    assert _post(client, t, "showdown", hands=DEAL).status_code == 200  # hand 1 typed, without it
    s = _played(client, t)
    before = app.extensions["mus_store"].counts(t["id"])
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd2", "version": s["version"], "hands": DEAL, "photo_id": early})
    err = assert_error(r, 409, "showdown_settled")
    assert err["field"] == "photo_id" and "taken before hand 1 was settled" in err["message"]
    reads = reader.calls
    err = assert_error(_upload(client, t, f"?with={early}"), 409, "showdown_settled")
    assert err["field"] == "with" and "taken before hand 1 was settled" in err["message"]
    assert reader.calls == reads  # refused before it was read
    assert app.extensions["mus_store"].counts(t["id"]) == before  # nothing stored, nothing settled
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    while s["hands"]:  # hand 2's words undone, then hand 1's showdown
        s = _post(client, t, "undo").json
    s = _played(client, t)
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd1", "version": s["version"], "hands": DEAL, "photo_id": early})
    assert r.status_code == 200 and r.json["hands"][0]["photo_id"] == early, r.json


def test_a_photo_of_the_hand_played_stays_its_when_the_hand_before_is_undone_and_settled_again(tmp_path) -> None:
    """Hand 1 undone and settled again (corrected) while hand 2's photo waits: that photo was
    taken while hand 2 was played, and is hand 2's again once hand 2 is played again; one
    taken for hand 1 (before its first settle, or while it was played again) is still not."""
    app, client, t, reader = _two_reads_app(tmp_path)
    store = app.extensions["mus_store"]
    early = _upload(client, t).json["photo_id"]  # taken during hand 1
    _played(client, t)
    assert _post(client, t, "showdown", hands=DEAL).status_code == 200  # hand 1 typed, without it
    _played(client, t)
    mine = _upload(client, t).json["photo_id"]  # hand 2's showdown
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    while s["hands"]:  # hand 1 was wrong: hand 2's words undone, then hand 1's showdown
        s = _post(client, t, "undo").json
    replayed = _upload(client, t).json["photo_id"]  # taken while hand 1 is played again
    corrected = [DEAL[0], DEAL[1], DEAL[3], DEAL[2]]
    r = _post(client, t, "showdown", hands=corrected)  # hand 1 settled again, typed, without either
    assert r.status_code == 200 and r.json["hands"][0]["record"]["hands"] == corrected, r.json
    s = _played(client, t)
    # read again from the database: what tells hand 2's photo from hand 1's is stored, not cached
    client = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader}).test_client()
    store = client.application.extensions["mus_store"]
    before, reads = store.counts(t["id"]), reader.calls
    for stale in (early, replayed):  # each of hand 1's showdown, settled without it
        r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                        json={"client_id": f"sd-{stale}", "version": s["version"], "hands": DEAL, "photo_id": stale})
        err = assert_error(r, 409, "showdown_settled")
        assert err["field"] == "photo_id" and "taken before hand 1 was settled" in err["message"]
        err = assert_error(_upload(client, t, f"?with={stale}"), 409, "showdown_settled")
        assert err["field"] == "with" and "taken before hand 1 was settled" in err["message"]
    assert store.counts(t["id"]) == before and reader.calls == reads  # nothing read, stored or settled
    second = _upload(client, t, f"?with={mine}")  # another photo of hand 2's showdown
    assert second.status_code == 201 and second.json["together"]["photo_ids"] == [mine, second.json["photo_id"]]
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd-mine", "version": s["version"], "hands": DEAL, "photo_id": mine})
    assert r.status_code == 200, r.json
    assert [h["photo_id"] for h in r.json["hands"]] == [None, mine]
    assert r.json["hands"][0]["record"]["hands"] == corrected  # hand 1 as settled again
    for pid in (early, mine, replayed, second.json["photo_id"]):  # no photo lost on the way
        assert client.get(f"/api/tables/{t['id']}/photos/{pid}", headers=t["auth"]).status_code == 200


def test_a_photo_read_while_its_hand_is_settled_is_that_hands(tmp_path, monkeypatch) -> None:
    # the photo is of the hand being played when its upload came, however long its read takes
    app, client, t, reader = _two_reads_app(tmp_path)
    s = _played(client, t)
    real = reader.scan

    def slow(image, bottom=0):  # another phone types the cards while this photo is read
        assert _post(client, t, "showdown", hands=DEAL).status_code == 200
        return real(image, bottom)

    monkeypatch.setattr(reader, "scan", slow)
    late = _upload(client, t).json["photo_id"]
    monkeypatch.setattr(reader, "scan", real)
    s = _played(client, t)
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd2", "version": s["version"], "hands": DEAL, "photo_id": late})
    assert_error(r, 409, "showdown_settled")


def test_a_table_keeps_only_its_newest_unsettled_showdowns(tmp_path) -> None:
    # photos no hand cites (retaken, or sent in a loop) cannot grow without end: a new
    # showdown's first photo drops the oldest such showdowns past MAX_LOOSE, with every
    # photo read together with them; a settled hand's photos always stay
    from scorer.storage.tables import MAX_LOOSE

    app, client, t, _ = _two_reads_app(tmp_path)
    store = app.extensions["mus_store"]
    cited = _upload(client, t).json["photo_id"]
    s = _to_showdown(client, t)
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd", "version": s["version"], "hands": DEAL, "photo_id": cited})
    assert r.status_code == 200, r.json
    firsts = []
    for i in range(MAX_LOOSE + 2):
        firsts.append(_upload(client, t).json["photo_id"])
        if i == 0:
            assert _upload(client, t, f"?with={firsts[0]}").status_code == 201  # a second photo of it
    ids = {r[0] for r in store.db.reader().execute("SELECT id FROM photos WHERE table_id = ?", (t["id"],))}
    assert ids == {cited, *firsts[-MAX_LOOSE:]}  # the two oldest showdowns went, with their second photo
    assert client.get(f"/api/tables/{t['id']}/photos/{cited}", headers=t["auth"]).status_code == 200
    assert client.get(f"/api/tables/{t['id']}/photos/{firsts[0]}", headers=t["auth"]).status_code == 404


def test_a_stored_photo_tells_no_one_where_it_was_taken(tmp_path) -> None:
    # watchers, the history and export-photos get the photo without its GPS, phone and
    # comment, still upright; a retry of the same upload is still known by its bytes
    from web.testing import showdown_photo

    app, client, t, _ = _two_reads_app(tmp_path)
    img = Image.open(io.BytesIO(showdown_photo(DEAL)))
    exif = Image.Exif()
    exif[0x0112] = 1
    exif[0x010F] = "PhoneMaker"
    exif.get_ifd(0x8825).update({1: "N", 2: (43.0, 18.0, 30.0)})
    buf = io.BytesIO()
    img.save(buf, "JPEG", exif=exif, quality=92)
    data = buf.getvalue()
    assert b"PhoneMaker" in data
    r = client.post(f"/api/tables/{t['id']}/photos?client_id=gps1", headers=t["auth"], data=data,
                    content_type="image/jpeg")
    assert r.status_code == 201, r.json
    got = client.get(f"/api/tables/{t['id']}/photos/{r.json['photo_id']}?token={t['watch_token']}")
    assert got.status_code == 200 and b"PhoneMaker" not in got.data
    with Image.open(io.BytesIO(got.data)) as back:
        assert not back.getexif().get_ifd(0x8825) and back.size == img.size
    again = client.post(f"/api/tables/{t['id']}/photos?client_id=gps1", headers=t["auth"], data=data,
                        content_type="image/jpeg")
    assert again.status_code == 201 and again.json["photo_id"] == r.json["photo_id"]


def test_a_photo_is_refused_before_the_disk_fills(tmp_path) -> None:
    # PHOTO_MIN_FREE_BYTES: below it a photo is a 507 storage_full, nothing is read or
    # kept, and the hand can still be settled by typing the cards
    rec = FakeRecognizer()
    app = create_app({"DATABASE": str(tmp_path / "full.db"), "TESTING": True, "RECOGNIZER": rec,
                      "PHOTO_MIN_FREE_BYTES": 1 << 60})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    err = assert_error(c.post(f"/api/tables/{t['id']}/photos", headers=t["auth"], data=photo_bytes(size=(96, 72)),
                              content_type="image/jpeg"), 507, "storage_full")
    assert "MB free" in err["message"] and rec.calls == []
    assert app.extensions["mus_store"].counts(t["id"])["photos"] == 0
    app.config["PHOTO_MIN_FREE_BYTES"] = 0
    assert c.post(f"/api/tables/{t['id']}/photos", headers=t["auth"], data=photo_bytes(size=(96, 72)),
                  content_type="image/jpeg").status_code == 201


def test_a_photo_dropped_meanwhile_is_named_for_the_page_to_settle_without_it(tmp_path) -> None:
    # another phone's retakes dropped this phone's showdown photo (MAX_LOOSE): the settle
    # names photo_id (the page then settles from the cards alone, as the browser test shows)
    from scorer.storage.tables import MAX_LOOSE

    app, client, t, _ = _two_reads_app(tmp_path)
    mine = _upload(client, t).json["photo_id"]
    for _ in range(MAX_LOOSE):
        _upload(client, t)  # the other phone, retaking
    assert client.get(f"/api/tables/{t['id']}/photos/{mine}", headers=t["auth"]).status_code == 404
    s = _to_showdown(client, t)
    for pid in (mine, 7):
        bad = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                          json={"client_id": f"sd{pid}", "version": s["version"], "hands": DEAL, "photo_id": pid})
        assert assert_error(bad, 422, "invalid")["field"] == "photo_id"
    r = client.post(f"/api/tables/{t['id']}/showdown", headers=t["auth"],
                    json={"client_id": "sd", "version": s["version"], "hands": DEAL})
    assert r.status_code == 200 and r.json["hands"][0]["photo_id"] is None


def test_without_card_models_a_photo_says_so_without_a_server_path(tmp_path) -> None:
    empty = tmp_path / "no-models"
    empty.mkdir()
    app = create_app({"DATABASE": str(tmp_path / "n.db"), "TESTING": True, "MODEL_DIR": str(empty)})
    c = app.test_client()
    t = c.post("/api/tables", json={}).json
    r = c.post(f"/api/tables/{t['id']}/photos", headers={"Authorization": f"Bearer {t['token']}"},
               data=photo_bytes(), content_type="image/jpeg")
    err = assert_error(r, 503, "recognizer_unavailable")
    assert "type the cards" in err["message"] and str(tmp_path) not in err["message"]
    assert app.extensions["mus_store"].counts(t["id"])["photos"] == 0


def _post(client, t, path: str, **body):
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    return client.post(f"/api/tables/{t['id']}/{path}", headers=t["auth"],
                       json={"client_id": f"{path}-{s['version']}", "version": s["version"], **body})


def test_undoing_a_showdown_keeps_its_cards_and_photos_for_the_showdown_again(tmp_path) -> None:
    """The cards the players confirmed (a correction included) and the showdown's photos
    come back with the hand: no photo to retake, no card to correct twice."""
    from scorer.storage.tables import MAX_LOOSE

    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    second = _upload(client, t, f"?with={first}").json["photo_id"]
    _to_showdown(client, t)
    corrected = [DEAL[0], DEAL[1], DEAL[3], DEAL[2]]  # the photos read seats 2 and 3 the wrong way round
    r = _post(client, t, "showdown", hands=corrected, photo_id=second)
    assert r.status_code == 200, r.json
    assert r.json["current"]["shown"] is None and r.json["hands"][0]["photo_id"] == first
    r = _post(client, t, "undo")
    assert r.status_code == 200, r.json
    shown = {"hands": corrected, "photo_id": first}
    assert r.json["hands"] == [] and r.json["current"]["phase"] == "showdown" and r.json["current"]["shown"] == shown
    # the words taken back and said again, the cards stay with the hand, on any app
    word = r.json["current"]["log"][-1]
    assert _post(client, t, "undo").json["current"]["shown"] == shown
    assert _post(client, t, "actions", action=word).json["current"]["shown"] == shown
    again = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader}).test_client()
    assert again.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["current"]["shown"] == shown
    # what its photos read, for the page to show them again (the watchers' token reads it too)
    watch = {"Authorization": f"Bearer {t['watch_token']}"}
    r = client.get(f"/api/tables/{t['id']}/photos/{second}/scan", headers=watch)
    assert r.status_code == 200, r.json
    assert [p["photo_id"] for p in r.json["photos"]] == [first, second]
    assert r.json["photos"][0]["url"] == f"/api/tables/{t['id']}/photos/{first}"
    assert r.json["scan"]["photos"] == 2 and [sorted(h) for h in r.json["scan"]["hands"]] == [sorted(h) for h in DEAL]
    # the undone showdown's photos are not dropped as loose while its hand is played again
    calls = reader.calls
    for _ in range(MAX_LOOSE + 1):
        assert _upload(client, t).status_code == 201
    assert client.get(f"/api/tables/{t['id']}/photos/{first}", headers=t["auth"]).status_code == 200
    assert reader.calls == calls + MAX_LOOSE + 1
    # settled again with them: the hand cites them, and nothing is shown any more
    r = _post(client, t, "showdown", hands=corrected, photo_id=first)
    assert r.status_code == 200, r.json
    assert r.json["hands"][0]["photo_id"] == first and r.json["current"]["shown"] is None


def test_undoing_a_showdown_without_a_photo_keeps_its_cards(client, table) -> None:
    _to_showdown(client, table)
    assert _post(client, table, "showdown", hands=DEAL).status_code == 200
    assert _post(client, table, "undo").json["current"]["shown"] == {"hands": DEAL, "photo_id": None}


def test_a_photos_scan_is_read_with_a_token_of_its_table(client, table) -> None:
    pid = client.post(f"/api/tables/{table['id']}/photos", headers=table["auth"], data=photo_bytes()).json["photo_id"]
    r = client.get(f"/api/tables/{table['id']}/photos/{pid}/scan", headers=table["auth"])
    assert r.status_code == 200 and [p["photo_id"] for p in r.json["photos"]] == [pid]
    assert r.json["scan"]["hands"] == DEAL and r.json["photos"][0]["scan"] == r.json["scan"]
    assert_error(client.get(f"/api/tables/{table['id']}/photos/nope/scan", headers=table["auth"]), 404, "not_found")
    assert_error(client.get(f"/api/tables/{table['id']}/photos/{pid}/scan"), 401, "missing_token")
    other = client.post("/api/tables", json={}).json
    assert_error(client.get(f"/api/tables/{other['id']}/photos/{pid}/scan",
                            headers={"Authorization": f"Bearer {other['token']}"}), 404, "not_found")


def test_no_photo_once_the_match_is_over(app, client, rec) -> None:
    """As every write of a hand: a 409 `match_over`, refused before the photo is read; an
    upload retried (its `client_id`) still answers as it was stored; the store refuses too."""
    t = client.post("/api/tables", json={"rules": {"games_per_vaca": 1, "vacas_to_win": 1}}).json
    auth = t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    url = f"/api/tables/{t['id']}/photos"
    first = client.post(f"{url}?client_id=before", headers=auth, data=photo_bytes(), content_type="image/jpeg")
    assert first.status_code == 201
    s = client.get(f"/api/tables/{t['id']}", headers=auth).json
    for i, a in enumerate(({"seat": 0, "act": "ordago"}, {"seat": 1, "act": "quiero"})):
        s = client.post(f"/api/tables/{t['id']}/actions", headers=auth,
                        json={"client_id": f"a{i}", "version": s["version"], "action": a}).json
    s = client.post(f"/api/tables/{t['id']}/showdown", headers=auth,
                    json={"client_id": "sd", "version": s["version"], "hands": DEAL}).json
    assert s["winner"] is not None and s["current"] is None
    before, calls = snapshot(app, client, t), len(rec.calls)
    for multipart in (False, True):
        for query in ("?client_id=after", ""):
            body = {"data": {"photo": (io.BytesIO(photo_bytes()), "s.jpg")}, "content_type": "multipart/form-data"} \
                if multipart else {"data": photo_bytes(), "content_type": "image/jpeg"}
            assert_error(client.post(url + query, headers=auth, **body), 409, "match_over")
    assert len(rec.calls) == calls  # not read
    assert snapshot(app, client, t) == before  # nor stored
    again = client.post(f"{url}?client_id=before", headers=auth, data=photo_bytes(), content_type="image/jpeg")
    assert again.status_code == 201 and again.json["photo_id"] == first.json["photo_id"]
    from scorer.storage.tables import StoreError

    with pytest.raises(StoreError) as exc:
        app.extensions["mus_store"].add_photo(t["id"], "direct", "image/jpeg", photo_bytes(), None, {"cards": []})
    assert (exc.value.status, exc.value.code) == (409, "match_over")
    assert snapshot(app, client, t) == before


def test_openapi_lists_the_photo_form_fields_and_what_a_413_may_be(client) -> None:
    doc = client.get("/api/openapi.json").json
    form = doc["paths"]["/api/tables/{table_id}/photos"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert set(form["schema"]["properties"]) == {"photo", "bottom", "client_id", "with"}
    assert form["schema"]["properties"]["bottom"]["enum"] == ["0", "1", "2", "3"]
    scan = doc["paths"]["/api/scan"]["post"]["requestBody"]["content"]["multipart/form-data"]
    assert set(scan["schema"]["properties"]) == {"photo", "bottom"}
    said = doc["components"]["responses"]["E413"]["description"]
    assert "too_large" in said and "50 megapixels" in said and "64 KB" in said


def test_the_showdown_not_yet_settled_is_kept_for_every_phone(tmp_path) -> None:
    """The photo read and the cards named at the showdown, kept with the hand (`POST
    .../shown`, a versioned write): another phone, or the page reloaded, reads them in
    `current.shown`; a bad place, a photo not this hand's or a stale version is refused
    naming it, changing nothing; the words said and the hands settled stay as they were."""
    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    second = _upload(client, t, f"?with={first}").json["photo_id"]
    before = _post(client, t, "shown", hands=[[None] * 4] * 4)
    assert before.status_code == 422 and before.json["error"]["reason"] == "no_showdown_yet"
    assert before.json["error"]["field"] == "phase"
    s = _to_showdown(client, t)
    places = [DEAL[0], [DEAL[1][0], None, DEAL[1][2], None], None, DEAL[3]]
    r = _post(client, t, "shown", hands=places, photo_id=second, bottom=0)
    assert r.status_code == 200, r.json
    kept = {"hands": [DEAL[0], [DEAL[1][0], None, DEAL[1][2], None], [None] * 4, DEAL[3]], "photo_id": first,
            "bottom": 0}
    assert r.json["current"]["shown"] == kept and r.json["version"] == s["version"] + 1
    assert r.json["current"]["log"] == s["current"]["log"] and r.json["hands"] == s["hands"]
    again = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader}).test_client()
    assert again.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["current"]["shown"] == kept
    # refusals name what is wrong, and change nothing
    store = app.extensions["mus_store"]
    snap = snapshot(app, client, t)
    for body, status, code, field, said in [
        ({"hands": DEAL[:3]}, 422, "invalid", "hands", "four lists"),
        ({"hands": [DEAL[0], DEAL[1], ["1o", None], DEAL[3]]}, 422, "invalid", "hands[2]", "four places"),
        ({"hands": [DEAL[0], DEAL[1], [None, "8o", None, None], DEAL[3]]}, 422, "invalid", "hands[2][1]", "8s"),
        ({"hands": [DEAL[0], DEAL[1], [None, DEAL[0][2], None, None], DEAL[3]]}, 422, "invalid", "hands[2][1]",
         "hands[0][2]"),
        ({"hands": DEAL, "photo_id": "nope"}, 422, "invalid", "photo_id", "no photo"),
        ({"hands": DEAL, "photo_id": first, "bottom": 4}, 422, "invalid", "bottom", "got 4"),
        ({"hands": DEAL, "photo_id": first, "bottom": True}, 422, "invalid", "bottom", "got true"),
        ({"hands": DEAL, "photo_id": first, "bottom": 1.0}, 422, "invalid", "bottom", "got 1.0"),
        ({"hands": DEAL, "photo_id": first, "bottom": 2.0}, 422, "invalid", "bottom", "got 2.0"),
        ({"hands": DEAL, "bottom": 1.0}, 422, "invalid", "bottom", "got 1.0"),
        ({"hands": DEAL, "bottom": "1"}, 422, "invalid", "bottom", 'got "1"'),
        ({"hands": DEAL, "seat": 1}, 422, "invalid", "seat", "unknown key"),
        ({}, 400, "invalid", "hands", "missing"),
    ]:
        err = assert_error(_post(client, t, "shown", **body), status, code)
        assert err["field"] == field and said in err["message"], (body, err)
    stale = client.post(f"/api/tables/{t['id']}/shown", headers=t["auth"],
                        json={"client_id": "old", "version": s["version"], "hands": DEAL})
    assert_error(stale, 409, "stale_version")
    assert snapshot(app, client, t) == snap
    # settled: the hand takes the cards and cites the photo; nothing is pending any more
    r = _post(client, t, "showdown", hands=DEAL, photo_id=first)
    assert r.json["current"]["shown"] is None and r.json["hands"][0]["photo_id"] == first
    # a photo of a hand settled is not the next hand's
    _played(client, t)
    err = assert_error(_post(client, t, "shown", hands=DEAL, photo_id=second), 409, "showdown_settled")
    assert err["field"] == "photo_id"
    assert store.counts(t["id"])["hands"] == 1



def _check(client, t, photo_id, seat, place, card, **extra):
    return _post(client, t, "shown/checks", photo_id=photo_id, seat=seat, place=place, card=card, **extra)


def test_an_unsure_read_confirmed_is_kept_for_every_phone(tmp_path) -> None:
    """A person confirms Bixente's 2c, read unsure (`POST .../shown/checks`, a versioned
    write): `current.shown.checked` says it to every phone and a server started again; a
    retry answers as it was; bad input (a seat or place out of range, not a card, a card
    not at that place, a photo not the showdown's, a stale version, a forged token) is
    refused naming what is wrong, and nothing recorded is lost."""
    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    second = _upload(client, t, f"?with={first}").json["photo_id"]
    early = _check(client, t, first, 1, 1, "2c")
    assert early.status_code == 422 and early.json["error"]["reason"] == "no_showdown_yet"
    assert early.json["error"]["field"] == "phase"
    _to_showdown(client, t)
    assert _post(client, t, "shown", hands=DEAL, photo_id=first, bottom=0).status_code == 200
    r = _check(client, t, first, 1, 1, "2c")
    assert r.status_code == 200, r.json
    assert r.json["current"]["shown"] == {"hands": DEAL, "photo_id": first, "bottom": 0,
                                          "checked": [{"seat": 1, "place": 1, "card": "2c"}]}
    again = client.post(f"/api/tables/{t['id']}/shown/checks", headers=t["auth"],
                        json={"client_id": f"shown/checks-{r.json['version'] - 1}", "version": r.json["version"] - 1,
                              "photo_id": first, "seat": 1, "place": 1, "card": "2c"})
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["version"] == r.json["version"]
    # any photo of the showdown names it; the list is by seat and place, one per place
    r = _check(client, t, second, 0, 3, "4o")
    assert r.json["current"]["shown"]["checked"] == [{"seat": 0, "place": 3, "card": "4o"},
                                                     {"seat": 1, "place": 1, "card": "2c"}]
    fresh = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader}).test_client()
    assert fresh.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["current"]["shown"] == r.json["current"]["shown"]
    snap = snapshot(app, client, t)
    other = client.post("/api/tables", json={}).json
    theirs = client.post(f"/api/tables/{other['id']}/photos", headers={"Authorization": f"Bearer {other['token']}"},
                         data=photo_bytes(), content_type="image/jpeg").json["photo_id"]
    for body, status, code, field, said in [
        ({"seat": 4}, 422, "invalid", "seat", "4 is not a seat 0..3"),
        ({"seat": True}, 422, "invalid", "seat", "true is not a seat 0..3"),
        ({"seat": "1"}, 422, "invalid", "seat", '"1" is not a seat 0..3'),
        ({"place": -1}, 422, "invalid", "place", "-1 is not a place 0..3"),
        ({"place": 1.0}, 422, "invalid", "place", "1.0 is not a place 0..3"),
        ({"card": "8o"}, 422, "invalid", "card", "8s"),
        ({"card": None}, 422, "invalid", "card", "null"),
        ({"card": "3c"}, 422, "invalid", "card", "hands[1][1] holds \"2c\", not \"3c\""),
        ({"photo_id": "nope"}, 422, "invalid", "photo_id", "no photo \"nope\""),
        ({"photo_id": theirs}, 422, "invalid", "photo_id", "no photo"),
        ({"colour": "red"}, 422, "invalid", "colour", "unknown key"),
    ]:
        args = {"photo_id": first, "seat": 1, "place": 1, "card": "2c", **body}
        err = assert_error(_check(client, t, **args), status, code)
        assert err["field"] == field and said in err["message"], (body, err)
    for key in ("photo_id", "seat", "place", "card"):
        body = {k: v for k, v in {"photo_id": first, "seat": 1, "place": 1, "card": "2c"}.items() if k != key}
        err = assert_error(_post(client, t, "shown/checks", **body), 400, "invalid")
        assert err["field"] == key and "missing" in err["message"]
    body = {"client_id": "late", "version": snap_version(client, t) - 1, "photo_id": first, "seat": 1, "place": 1,
            "card": "2c"}
    assert_error(client.post(f"/api/tables/{t['id']}/shown/checks", headers=t["auth"], json=body), 409,
                 "stale_version")
    body["version"] += 1
    for headers, status, code in [({"Authorization": "Bearer forged"}, 403, "bad_token"),
                                  ({"Authorization": f"Bearer {t['watch_token']}"}, 403, "read_only"),
                                  ({"Authorization": f"Bearer {other['token']}"}, 403, "bad_token"),
                                  ({}, 401, "missing_token")]:
        assert_error(client.post(f"/api/tables/{t['id']}/shown/checks", headers=headers, json=body), status, code)
    used = f"shown/checks-{snap_version(client, t) - 1}"  # the last check's client_id, for another check
    assert_error(client.post(f"/api/tables/{t['id']}/shown/checks", headers=t["auth"],
                             json={**body, "client_id": used}), 409, "client_id_reused")
    assert snapshot(app, client, t) == snap
    # the showdown kept has no photo: nothing read there to confirm
    assert _post(client, t, "shown", hands=DEAL).status_code == 200
    err = assert_error(_check(client, t, first, 1, 1, "2c"), 422, "invalid")
    assert err["field"] == "photo_id" and "has no photo" in err["message"]


def test_a_confirmation_taken_back_is_unsure_again_for_every_phone(tmp_path) -> None:
    """A person confirmed Bixente's 2c and takes it back (`undo: true`, the same versioned
    write): `current.shown.checked` no longer has it, for every phone (the live events are
    told the new version) and a server started again, the other confirmation stays; a retry
    answers as it was. A bad or stale take-back (the card not confirmed there, another card,
    `undo` not a boolean, a stale version, a forged token, the confirmation's own
    client_id) is refused naming what is wrong, and nothing recorded is lost."""
    app, client, t, reader = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    _to_showdown(client, t)
    assert _post(client, t, "shown", hands=DEAL, photo_id=first, bottom=0).status_code == 200
    _check(client, t, first, 1, 1, "2c")
    confirmed = _check(client, t, first, 0, 3, "4o")
    assert [(c["seat"], c["place"]) for c in confirmed.json["current"]["shown"]["checked"]] == [(0, 3), (1, 1)]
    heard = []
    app.extensions["mus_store"].listeners.append(lambda table_id, version: heard.append((table_id, version)))
    r = _check(client, t, first, 1, 1, "2c", undo=True)
    assert r.status_code == 200, r.json
    assert r.json["version"] == confirmed.json["version"] + 1 and heard == [(t["id"], r.json["version"])]
    assert r.json["current"]["shown"] == {"hands": DEAL, "photo_id": first, "bottom": 0,
                                          "checked": [{"seat": 0, "place": 3, "card": "4o"}]}
    again = client.post(f"/api/tables/{t['id']}/shown/checks", headers=t["auth"],
                        json={"client_id": f"shown/checks-{r.json['version'] - 1}", "version": r.json["version"] - 1,
                              "photo_id": first, "seat": 1, "place": 1, "card": "2c", "undo": True})
    assert again.status_code == 200 and again.headers.get("Idempotent-Replayed") == "true"
    assert again.json["version"] == r.json["version"] and len(heard) == 1
    fresh = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader}).test_client()
    assert fresh.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["current"]["shown"] == r.json["current"]["shown"]
    snap = snapshot(app, client, t)
    for body, status, code, field, said in [
        ({}, 422, "nothing_to_undo", "card", '"2c" at hands[1][1] is not confirmed'),
        ({"card": "3c"}, 422, "invalid", "card", 'hands[1][1] holds "2c", not "3c"'),
        ({"undo": "yes"}, 422, "invalid", "undo", 'got "yes"'),
        ({"undo": 1}, 422, "invalid", "undo", "got 1"),
        ({"undo": None}, 422, "invalid", "undo", "got null"),
        ({"seat": 4}, 422, "invalid", "seat", "4 is not a seat 0..3"),
        ({"photo_id": "nope"}, 422, "invalid", "photo_id", 'no photo "nope"'),
    ]:
        args = {"photo_id": first, "seat": 1, "place": 1, "card": "2c", "undo": True, **body}
        err = assert_error(_check(client, t, **args), status, code)
        assert err["field"] == field and said in err["message"], (body, err)
    body = {"client_id": "late", "version": snap_version(client, t) - 1, "photo_id": first, "seat": 0, "place": 3,
            "card": "4o", "undo": True}
    err = assert_error(client.post(f"/api/tables/{t['id']}/shown/checks", headers=t["auth"], json=body), 409,
                       "stale_version")
    assert err["field"] == "version"
    body["version"] += 1
    for headers, status, code in [({"Authorization": "Bearer forged"}, 403, "bad_token"),
                                  ({"Authorization": f"Bearer {t['watch_token']}"}, 403, "read_only"),
                                  ({}, 401, "missing_token")]:
        assert_error(client.post(f"/api/tables/{t['id']}/shown/checks", headers=headers, json=body), status, code)
    # the confirmation's own client_id is not its taking back: another request
    used = f"shown/checks-{confirmed.json['version'] - 1}"
    err = assert_error(client.post(f"/api/tables/{t['id']}/shown/checks", headers=t["auth"],
                                   json={**body, "client_id": used}), 409, "client_id_reused")
    assert err["field"] == "client_id" and "(check)" in err["message"]
    assert snapshot(app, client, t) == snap and len(heard) == 1
    # the last one taken back: `checked` goes; confirmed again, it comes back
    r = _check(client, t, first, 0, 3, "4o", undo=True)
    assert r.json["current"]["shown"] == {"hands": DEAL, "photo_id": first, "bottom": 0}
    assert _check(client, t, first, 0, 3, "4o").json["current"]["shown"]["checked"] == [
        {"seat": 0, "place": 3, "card": "4o"}]


def snap_version(client, t) -> int:
    return client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json["version"]


def test_a_confirmation_stays_while_its_card_does_in_its_showdown(tmp_path) -> None:
    """A confirmation belongs to a card at a place of one showdown: another photo added to
    it, a card named elsewhere and the cards seated from another seat keep it (turned with
    its seat); the card changed or moved from its place drops it, and so does a new first
    photo (its reads are checked afresh). Undoing a word keeps it with the hand; once the
    hand is settled it is gone, and a settled hand undone comes back without any."""
    app, client, t, _ = _two_reads_app(tmp_path)
    first = _upload(client, t).json["photo_id"]
    _to_showdown(client, t)
    _post(client, t, "shown", hands=DEAL, photo_id=first, bottom=0)
    _check(client, t, first, 1, 1, "2c")
    _check(client, t, first, 3, 0, DEAL[3][0])

    def checked(r) -> list:
        assert r.status_code == 200, r.json
        return [(c["seat"], c["place"], c["card"]) for c in r.json["current"]["shown"].get("checked", ())]

    second = _upload(client, t, f"?with={first}").json["photo_id"]
    hands = [list(h) for h in DEAL]
    hands[0][0] = None  # a card left to name: the others keep their places
    assert checked(_post(client, t, "shown", hands=hands, photo_id=second, bottom=0)) == [(1, 1, "2c"), (3, 0, "1b")]
    turned = [hands[3], hands[0], hands[1], hands[2]]  # taken from seat 1: seat s's cards are seat s+1's
    assert checked(_post(client, t, "shown", hands=turned, photo_id=first, bottom=1)) == [(0, 0, "1b"), (2, 1, "2c")]
    turned[2] = [turned[2][0], "5c", *turned[2][2:]]  # 2c named 5c: its confirmation goes
    assert checked(_post(client, t, "shown", hands=turned, photo_id=first, bottom=1)) == [(0, 0, "1b")]
    turned[0] = [None, *turned[0][1:3], "1b"]  # 1b moved to another place of its seat: it goes too
    assert checked(_post(client, t, "shown", hands=turned, photo_id=first, bottom=1)) == []
    assert checked(_check(client, t, first, 0, 3, "1b")) == [(0, 3, "1b")]
    # a word undone: the showdown waits with the hand, its confirmation with it
    r = _post(client, t, "undo")
    assert r.json["current"]["phase"] not in ("showdown", "over") and checked(r) == [(0, 3, "1b")]
    assert checked(client.get(f"/api/tables/{t['id']}", headers=t["auth"])) == [(0, 3, "1b")]
    s = _played(client, t)
    assert s["current"]["shown"]["checked"] == [{"seat": 0, "place": 3, "card": "1b"}]
    # a new first photo: its reads are checked afresh, though it reads the same cards there
    new = _upload(client, t).json["photo_id"]
    assert checked(_post(client, t, "shown", hands=turned, photo_id=new, bottom=1)) == []
    assert checked(_check(client, t, new, 0, 3, "1b")) == [(0, 3, "1b")]
    # settled: nothing is pending; undone, the hand's cards come back, all confirmed then
    full = [["4b", *turned[0][1:]], ["1o", *turned[1][1:]], turned[2], turned[3]]
    r = _post(client, t, "showdown", hands=full, photo_id=new)
    assert r.status_code == 200 and r.json["current"]["shown"] is None, r.json
    r = _post(client, t, "undo")
    assert r.json["current"]["shown"] == {"hands": full, "photo_id": new}

def _bottom_seat_colour(jpeg: bytes) -> int:
    """The seat whose colour (`SEAT_COLOURS`) the annotated copy of a `showdown_photo` draws
    most along its bottom edge, where the cards of the seat at that edge lie."""
    from scorer.vision.annotate import SEAT_COLOURS

    img = Image.open(io.BytesIO(jpeg)).convert("RGB")
    w, h = img.size
    raw = img.crop((0, int(h * 0.85), w, h)).tobytes()
    edge = list(zip(raw[0::3], raw[1::3], raw[2::3], strict=True))
    near = [sum(1 for px in edge if max(abs(a - b) for a, b in zip(px, colour, strict=True)) < 40)
            for colour in SEAT_COLOURS]
    assert max(near) > 100, near  # the boxes are there
    return near.index(max(near))


def test_a_photo_seated_again_has_its_annotated_copy_drawn_with_the_new_seats(tmp_path) -> None:
    """The annotated copy (the history's photo) labels each card with its seat, in its
    seat's colour. The photo seated from another seat (`/shown` with another `bottom`) has
    it drawn again from the photo and the scan kept, not read again: the cards at its bottom
    edge in the colour of the seat there now. The copy is kept (drawn once), and served with
    an ETag: a 304 while it stands, the new copy once it is seated again."""
    from web.testing import FakeRecognizer as Reader

    reader = Reader(DEAL)
    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": reader})
    client = app.test_client()
    t = client.post("/api/tables", json={}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    store = app.extensions["mus_store"]
    up = _upload(client, t, "?bottom=0").json
    url, pid = f"{up['annotated_url']}?token={t['watch_token']}", up["photo_id"]
    first = client.get(url)
    assert first.status_code == 200 and first.mimetype == "image/jpeg" and "no-cache" in first.headers["Cache-Control"]
    assert _bottom_seat_colour(first.data) == 0
    assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    _to_showdown(client, t)
    turned = [DEAL[(s + 2) % 4] for s in range(4)]  # taken with seat 2 at the bottom edge
    assert _post(client, t, "shown", hands=turned, photo_id=pid, bottom=2).status_code == 200
    again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.headers["ETag"] != first.headers["ETag"]
    assert _bottom_seat_colour(again.data) == 2
    assert Image.open(io.BytesIO(again.data)).size == Image.open(io.BytesIO(first.data)).size
    assert reader.calls == 1  # drawn from the scan kept, not read again
    kept, _, _ = store.annotated_photo(t["id"], pid)
    assert kept == again.data  # kept: drawn once
    assert client.get(url, headers={"If-None-Match": again.headers["ETag"]}).status_code == 304
    # a copy drawn from a scan seated again meanwhile is not kept over the next one's
    assert _post(client, t, "shown", hands=DEAL, photo_id=pid, bottom=0).status_code == 200
    assert store.set_annotated(t["id"], pid, again.data, store.annotated_photo(t["id"], pid)[2] + " ") is False
    assert store.annotated_photo(t["id"], pid)[0] is None
    _, photo, scan = store.annotated_photo(t["id"], pid)
    assert photo and store.annotated_photo(t["id"], pid, photo=False) == (None, None, scan)  # the bytes not read
    back = client.get(url)
    assert _bottom_seat_colour(back.data) == 0 and back.data == first.data


def _seated_again(tmp_path, monkeypatch, hold: float = 0.0):
    """A table with a photo seated again from seat 2 (its annotated copy to be drawn anew),
    its watch link, and the drawings of annotated copies counted (each held `hold` s)."""
    import threading
    import time

    from web import api
    from web.testing import FakeRecognizer as Reader

    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "RECOGNIZER": Reader(DEAL)})
    client = app.test_client()
    t = client.post("/api/tables", json={}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    up = _upload(client, t, "?bottom=0").json
    _to_showdown(client, t)
    turned = [DEAL[(s + 2) % 4] for s in range(4)]
    assert _post(client, t, "shown", hands=turned, photo_id=up["photo_id"], bottom=2).status_code == 200
    drawn: list[int] = []
    lock, draw = threading.Lock(), api._draw_annotated

    def counted(photo, scan, *labels):
        with lock:
            drawn.append(scan["bottom"])
        time.sleep(hold)
        return draw(photo, scan, *labels)

    monkeypatch.setattr(api, "_draw_annotated", counted)
    return app, t, up, f"{up['annotated_url']}?token={t['watch_token']}", drawn


def test_an_annotated_copy_asked_for_at_once_is_drawn_once(tmp_path, monkeypatch) -> None:
    """Phones and watchers that ask at once for the annotated copy of a photo seated again
    wait for the one drawing it: the photo is decoded once on the scan workers, not once
    each (their slots are the uploads')."""
    import threading

    app, t, up, url, drawn = _seated_again(tmp_path, monkeypatch, hold=0.3)
    start, got = threading.Barrier(6), []

    def ask() -> None:
        client = app.test_client()
        start.wait(10)
        r = client.get(url)
        got.append((r.status_code, r.data))

    threads = [threading.Thread(target=ask) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert len(got) == 6 and {status for status, _ in got} == {200} and len({data for _, data in got}) == 1
    assert drawn == [2], drawn
    assert not app.extensions["mus_annotated"]._drawing  # nothing left behind


def test_an_annotated_copy_that_cannot_be_stored_is_kept_in_memory_until_seated_again(tmp_path, monkeypatch) -> None:
    """Where the copy drawn again cannot be stored (a read-only database, a full disk:
    `set_annotated` False), it is kept in memory, not drawn again for every request (a
    watcher's GET or HEAD); seated again, it is drawn anew from the new seats."""
    app, t, up, url, drawn = _seated_again(tmp_path, monkeypatch)
    store = app.extensions["mus_store"]
    monkeypatch.setattr(store, "set_annotated", lambda *args: False)
    client = app.test_client()
    first = client.get(url)
    assert first.status_code == 200 and _bottom_seat_colour(first.data) == 2
    again = client.get(url)
    assert again.status_code == 200 and again.data == first.data
    assert client.head(url).status_code == 200
    assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    assert drawn == [2], drawn
    assert store.annotated_photo(t["id"], up["photo_id"])[0] is None  # not stored: kept in memory
    assert _post(client, t, "shown", hands=DEAL, photo_id=up["photo_id"], bottom=0).status_code == 200
    back = client.get(url)
    assert back.status_code == 200 and _bottom_seat_colour(back.data) == 0 and drawn == [2, 0]
    assert client.get(url).data == back.data and drawn == [2, 0]


def test_the_photo_seated_from_another_seat_is_seated_again_where_it_is_kept(tmp_path) -> None:
    """`bottom` other than the one the photo was read with: every card, hand and warning
    seat of its showdown's scans turns with it (the seats follow from the bottom edge,
    counterclockwise), so that what the photos read says the seats the players say."""
    from scorer.storage.tables import rotate_scan

    app, client, t, _ = _two_reads_app(tmp_path)
    first = _upload(client, t, "?bottom=0").json["photo_id"]
    second = _upload(client, t, f"?with={first}&bottom=0").json["photo_id"]
    _to_showdown(client, t)
    turned = [DEAL[3], DEAL[0], DEAL[1], DEAL[2]]  # taken from seat 1: seat s's cards are seat s+1's
    r = _post(client, t, "shown", hands=turned, photo_id=first, bottom=1)
    assert r.status_code == 200, r.json
    assert r.json["current"]["shown"]["bottom"] == 1
    scans = client.get(f"/api/tables/{t['id']}/photos/{second}/scan", headers=t["auth"]).json
    for p in scans["photos"]:
        assert p["scan"]["bottom"] == 1
        assert {c["card"]: c["seat"] for c in p["scan"]["cards"] if c["seat"] is not None} \
            == {c: s for s, hand in enumerate(turned) for c in hand if c in {x["card"] for x in p["scan"]["cards"]}}
    assert [sorted(h) for h in scans["scan"]["hands"]] == [sorted(h) for h in turned]
    # the rotation itself: back to 0 gives the read again; a card without a seat keeps none
    scan = {"bottom": 2, "cards": [{"card": "1o", "seat": 3}, {"card": "8o", "seat": None}],
            "hands": [["a"], ["b"], ["c"], ["d"]], "warnings": [{"code": "seat_count", "seat": 0}, {"code": "x"}]}
    out = rotate_scan(scan, 0)
    assert out["cards"] == [{"card": "1o", "seat": 1}, {"card": "8o", "seat": None}]
    assert out["hands"] == [["c"], ["d"], ["a"], ["b"]] and out["warnings"][0]["seat"] == 2
    assert rotate_scan(out, 2) == scan
