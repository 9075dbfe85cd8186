"""Teaching the reader a club's deck from the web app (`web.decks`): the admin key, bad
uploads, and the whole job for real (`datasets.enroll` then `datasets.heads`, tiny settings)
on four photos rendered at test time, then the server reading with the taught models."""

from __future__ import annotations

import importlib.util
import io
import json
import time

import pytest

pytest.importorskip("cv2", reason="teaching a deck needs OpenCV (the enroll or train extra)")
pytest.importorskip("onnx", reason="teaching a deck needs onnx (the enroll or train extra)")

from datasets.render import layout_photos  # noqa: E402
from web import create_app  # noqa: E402
from web.decks import RUNNING, SUITS, Teacher, admin_key  # noqa: E402

KEY = "k" * 24
TINY = ["--scenes", "3", "--check", "1", "--epochs", "2", "--hidden", "32", "--workers", "1"]


def _app(tmp_path, **cfg):
    return create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True, "ADMIN_KEY": KEY,
                       "TEACH_ARGS": TINY, **cfg})


def _auth(key: str = KEY) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _photos() -> dict[str, tuple[io.BytesIO, str]]:
    """The 40 cards of the drawn deck laid out as `datasets.enroll` asks, a suit a photo."""
    out = {}
    for suit, image in zip(SUITS, layout_photos(5, "naipes-libres"), strict=True):
        buf = io.BytesIO()
        image.save(buf, "JPEG", quality=92)
        out[suit] = (io.BytesIO(buf.getvalue()), f"{suit}.jpg")
    return out


def _wait(client, deck_id: str, timeout: float = 300) -> dict:
    end = time.time() + timeout
    while time.time() < end:
        info = client.get(f"/api/decks/{deck_id}", headers=_auth()).get_json()
        if info["state"] not in RUNNING:
            return info
        time.sleep(0.5)
    raise AssertionError(f"the deck was still {info['state']} after {timeout} s: {info}")


def test_every_deck_route_asks_for_the_admin_key(tmp_path) -> None:
    c = _app(tmp_path).test_client()
    for method, path in (("get", "/api/decks"), ("post", "/api/decks"), ("get", "/api/decks/abcdefabcdef"),
                         ("post", "/api/decks/shipped/use"), ("delete", "/api/decks/abcdefabcdef")):
        r = getattr(c, method)(path)
        assert r.status_code == 401 and r.get_json()["error"]["code"] == "admin_key_required", path
        r = getattr(c, method)(path, headers=_auth("wrong" * 5))
        assert r.status_code == 403 and r.get_json()["error"]["code"] == "admin_key_wrong", path
    r = c.get("/api/decks", headers=_auth())
    assert r.status_code == 200 and r.get_json()["decks"] == [] and r.get_json()["active"] is None
    assert c.get(f"/api/decks?key={KEY}").status_code == 200


def test_the_admin_key_is_made_once_kept_private_and_read_again(tmp_path) -> None:
    key = admin_key(tmp_path)
    assert len(key) >= 16 and admin_key(tmp_path) == key
    assert (tmp_path / "admin.key").stat().st_mode & 0o077 == 0
    app = create_app({"DATABASE": str(tmp_path / "mus.db")})
    assert app.config["ADMIN_KEY"] == key


def test_bad_uploads_are_refused_by_name_and_leave_nothing_behind(tmp_path) -> None:
    app = _app(tmp_path)
    c = app.test_client()
    photos = _photos()
    del photos["espadas"]
    r = c.post("/api/decks", headers=_auth(), data=photos, content_type="multipart/form-data")
    assert r.status_code == 400 and r.get_json()["error"]["field"] == "espadas"
    assert "no photo" in r.get_json()["error"]["message"]
    bad = {**_photos(), "copas": (io.BytesIO(b"not an image at all"), "copas.jpg")}
    r = c.post("/api/decks", headers=_auth(), data=bad, content_type="multipart/form-data")
    assert r.status_code == 415 and r.get_json()["error"]["field"] == "copas"
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "name": "x" * 41}, content_type="multipart/form-data")
    assert r.status_code == 400 and r.get_json()["error"]["field"] == "name"
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "refine": "maybe"}, content_type="multipart/form-data")
    assert r.status_code == 400 and r.get_json()["error"]["field"] == "refine" and '"maybe"' in r.get_json()[
        "error"]["message"]
    assert c.get("/api/decks", headers=_auth()).get_json()["decks"] == []
    for path in ("/api/decks/nothere", "/api/decks/../../etc", "/api/decks/abcdefabcdef/sheet.jpg"):
        r = c.get(path, headers=_auth())
        assert r.status_code == 404, path
    assert c.post("/api/decks/abcdefabcdef/use", headers=_auth()).get_json()["error"]["code"] == "deck_not_found"


def test_every_bad_photo_is_told_at_once(tmp_path) -> None:
    """Four bad photos, four problems in one refusal (one submit to learn them all): the
    error is the first's (its status, code and suit), its message names each, and
    `problems` gives each photo's own; a photo too large says the photo's limit."""
    from PIL import Image

    from web.decks import PHOTO_LIMIT

    c = _app(tmp_path).test_client()
    good = _photos()
    tiny = io.BytesIO()
    Image.new("RGB", (20, 20), "red").save(tiny, "JPEG")
    bad = {"oros": (io.BytesIO(b"\xff" * (PHOTO_LIMIT + 1)), "oros.jpg"),
           "copas": (io.BytesIO(b"not an image at all"), "copas.jpg"),
           "espadas": (io.BytesIO(tiny.getvalue()), "espadas.jpg"),
           "bastos": (io.BytesIO(good["bastos"][0].getvalue()[:5000]), "bastos.jpg")}  # cut short: does not decode
    r = c.post("/api/decks", headers=_auth(), data=bad, content_type="multipart/form-data")
    err = r.get_json()["error"]
    assert (r.status_code, err["code"], err["field"]) == (413, "too_large", "oros")
    assert [(p["field"], p["code"], p["status"]) for p in err["problems"]] == [
        ("oros", "too_large", 413), ("copas", "not_image", 415), ("espadas", "too_small_image", 400),
        ("bastos", "corrupt_image", 400)]
    assert all(p["message"].startswith(f"{p['field']}: ") and p["message"] in err["message"] for p in err["problems"])
    assert "25 MB" in err["problems"][0]["message"] and "4 MB" not in err["message"]
    # one bad photo among good ones: the same shape, one problem
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "espadas": (io.BytesIO(tiny.getvalue()), "e.jpg")},
               content_type="multipart/form-data")
    err = r.get_json()["error"]
    assert r.status_code == 400 and err["field"] == "espadas" and [p["field"] for p in err["problems"]] == ["espadas"]
    assert c.get("/api/decks", headers=_auth()).get_json()["decks"] == []


def test_photos_that_do_not_hold_a_deck_fail_the_job_with_what_was_found(tmp_path) -> None:
    c = _app(tmp_path).test_client()
    photos = _photos()
    photos["bastos"] = photos["oros"]  # oros twice: still 40 cards; a blank photo: 30
    blank = io.BytesIO()
    from PIL import Image

    Image.new("RGB", (1600, 1200), (30, 90, 50)).save(blank, "JPEG")
    photos["bastos"] = (io.BytesIO(blank.getvalue()), "blank.jpg")
    r = c.post("/api/decks", headers=_auth(), data=photos, content_type="multipart/form-data")
    assert r.status_code == 202
    info = _wait(c, r.get_json()["id"])
    assert info["state"] == "failed" and "found 30 cards" in info["error"], info
    assert "use" not in c.get(f"/api/decks/{info['id']}", headers=_auth()).get_json()["links"]
    r = c.post(f"/api/decks/{info['id']}/use", headers=_auth())
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "deck_not_ready"


def test_a_deck_taught_from_four_photos_reads_the_table_photos_from_then_on(tmp_path) -> None:
    app = _app(tmp_path)
    c = app.test_client()
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "name": "Peña deck"},
               content_type="multipart/form-data")
    assert r.status_code == 202, r.get_json()
    deck = r.get_json()
    assert deck["name"] == "Peña deck" and deck["state"] in ("queued", "reading", "teaching")
    r = c.post("/api/decks", headers=_auth(), data=_photos(), content_type="multipart/form-data")
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "busy"  # one job at a time
    info = _wait(c, deck["id"])
    assert info["state"] == "ready", info
    assert info["agree"] >= 30 and info["check"]["after"]["photos"] == 1 and info["verdict"] in ("better", "same",
                                                                                                  "worse")
    sheet = c.get(info["links"]["sheet"], headers=_auth())
    assert sheet.status_code == 200 and sheet.data[:2] == b"\xff\xd8"
    folder = tmp_path / "decks" / deck["id"]
    assert not (folder / "work").exists()  # the rendered crops are not kept
    report = json.loads((folder / "models" / "ADAPTED.json").read_text())
    assert report["method"] == "heads" and report["deck"]["scenes"] == 3

    r = c.post(info["links"]["use"], headers=_auth())
    assert r.status_code == 200 and r.get_json()["active"] is True
    assert app.config["MODEL_DIR"] == str(folder / "models")
    from web.api import _recognizer

    with app.app_context():
        rec = _recognizer()
    assert rec.models.model_dir == folder / "models"
    r = c.delete(f"/api/decks/{deck['id']}", headers=_auth())
    assert r.status_code == 409 and r.get_json()["error"]["code"] == "deck_in_use"

    # a restart reads with the deck chosen; going back to the shipped models is kept too
    app2 = _app(tmp_path)
    assert app2.config["MODEL_DIR"] == str(folder / "models")
    c2 = app2.test_client()
    assert c2.get("/api/decks", headers=_auth()).get_json()["active"] == deck["id"]
    assert c2.post("/api/decks/shipped/use", headers=_auth()).get_json() == {"active": None}
    assert app2.config["MODEL_DIR"] == app2.config["BASE_MODEL_DIR"]
    assert _app(tmp_path).config.get("MODEL_DIR") is None
    assert c2.delete(f"/api/decks/{deck['id']}", headers=_auth()).status_code == 204
    assert not folder.exists() and c2.get("/api/decks", headers=_auth()).get_json()["decks"] == []


def test_a_job_the_last_server_was_running_reads_as_interrupted(tmp_path) -> None:
    root = tmp_path / "decks"
    (root / "abcdef012345").mkdir(parents=True)
    (root / "abcdef012345" / "job.json").write_text(json.dumps(
        {"id": "abcdef012345", "name": "x", "state": "teaching", "created": "2026-11-24T10:00:00Z"}))
    (root / "not-a-deck").mkdir()
    t = Teacher(root, tmp_path / "models")
    [info] = t.decks()
    assert info["state"] == "interrupted" and "teach it again" in info["error"]


def test_a_deck_removed_while_it_is_taught_stops_its_job_and_leaves_nothing(tmp_path) -> None:
    app = _app(tmp_path, TEACH_ARGS=["--scenes", "200", "--workers", "1"])  # long enough to be caught running
    c = app.test_client()
    deck = c.post("/api/decks", headers=_auth(), data=_photos(), content_type="multipart/form-data").get_json()
    time.sleep(1.0)
    assert c.get("/api/decks", headers=_auth()).get_json()["running"] == deck["id"]
    assert c.delete(f"/api/decks/{deck['id']}", headers=_auth()).status_code == 204
    listing = c.get("/api/decks", headers=_auth()).get_json()
    assert listing["running"] is None and listing["decks"] == []
    assert not (tmp_path / "decks" / deck["id"]).exists()


def test_refining_where_torch_is_missing_is_refused_by_name_and_starts_nothing(tmp_path, monkeypatch) -> None:
    import web.decks

    real = importlib.util.find_spec
    monkeypatch.setattr(web.decks.importlib.util, "find_spec", lambda m, *a: None if m == "torch" else real(m, *a))
    c = _app(tmp_path).test_client()
    listing = c.get("/api/decks", headers=_auth()).get_json()
    assert listing["available"] and not listing["refine_available"] and "torch" in listing["refine_why"]
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "refine": "1"}, content_type="multipart/form-data")
    assert r.status_code == 503 and r.get_json()["error"]["code"] == "refining_unavailable"
    assert "pip install -e '.[train]'" in r.get_json()["error"]["message"]
    assert c.get("/api/decks", headers=_auth()).get_json()["decks"] == []


@pytest.mark.train
def test_a_refined_deck_reads_with_both_teachings_as_one_and_says_how_it_checks(tmp_path) -> None:
    pytest.importorskip("ultralytics")
    app = _app(tmp_path, TEACH_REFINE_HOURS=0.001)
    c = app.test_client()
    assert c.get("/api/decks", headers=_auth()).get_json()["refine_available"]
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "refine": "1"}, content_type="multipart/form-data")
    assert r.status_code == 202 and r.get_json()["refine"] is True and r.get_json()["refined"] is None
    info = _wait(c, r.get_json()["id"], timeout=900)
    assert info["state"] == "ready" and info["refined"] is True and info["refine_error"] is None, info
    assert set(info["check"]) == {"before", "after", "ensemble"} and info["check"]["ensemble"]["photos"] == 1
    folder = tmp_path / "decks" / info["id"]
    assert not (folder / "work").exists()
    report = json.loads((folder / "models" / "ADAPTED.json").read_text())
    assert report["method"] == "heads" and set(report["ensemble"]["temperatures"]) == {"cls", "index"}
    assert report["ensemble"]["recipe"]["hours_per_reader"] == 0.001
    graph = (folder / "models" / "cards-index.onnx").read_bytes()
    assert b"mean/log_a" in graph  # one graph reads both teachings
    assert c.post(info["links"]["use"], headers=_auth()).status_code == 200
    from scorer.vision import Recognizer

    assert Recognizer(folder / "models").scan(_photos()["oros"][0].getvalue())["cards"]  # the refined models read


@pytest.mark.train
def test_a_deck_whose_refining_fails_is_ready_as_first_taught_and_says_why(tmp_path) -> None:
    pytest.importorskip("ultralytics")
    c = _app(tmp_path, TEACH_REFINE_ARGS=["--repeat", "0"]).test_client()  # datasets.adapt refuses it
    r = c.post("/api/decks", headers=_auth(), data={**_photos(), "refine": "on"}, content_type="multipart/form-data")
    info = _wait(c, r.get_json()["id"])
    assert info["state"] == "ready" and info["refined"] is False and "--repeat at least 1" in info["refine_error"], info
    assert set(info["check"]) == {"before", "after"} and "use" in info["links"]
    folder = tmp_path / "decks" / info["id"]
    report = json.loads((folder / "models" / "ADAPTED.json").read_text())
    assert report["method"] == "heads" and "ensemble" not in report  # the heads' models, as they were
    assert not (folder / "work").exists()
