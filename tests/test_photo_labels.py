"""The annotated copy of a table's photo speaks as the table page does: its seats by the
players' names, its cards as the table holds them (a correction struck over the read), in
a font that writes "Begoña" and "Iñaki"; the command line's copy keeps its labels."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from scorer.vision import annotate as annotate_fn
from web import create_app
from web.photo_labels import for_annotate, key, photo_labels, places

sys.path.insert(0, str(Path(__file__).parent))

annotate_mod = sys.modules["scorer.vision.annotate"]
DECK = [f"{r}{s}" for s in "oceb" for r in (1, 2, 3, 4, 5, 6, 7, 10, 11, 12)]
DEAL = [DECK[0:4], DECK[10:14], DECK[20:24], DECK[30:34]]
PLAYERS = ["Begoña", "Iñaki", "Maite", "Jon"]


def _scan(hands, unread=(), low=()):
    cards, warnings = [], []
    for s, hand in enumerate(hands):
        for i, c in enumerate(hand):
            box = [100 * i + 10, 100 * s + 10, 100 * i + 80, 100 * s + 90]
            if c in unread:
                warnings.append({"code": "low_confidence", "card": None, "conf": 0.0, "box": box})
                continue
            cards.append({"card": c, "conf": 0.41 if c in low else 0.97, "box": box, "seat": s})
            if c in low:
                warnings.append({"code": "low_confidence", "card": c, "conf": 0.41, "box": box})
    read = [[c for c in hand if c not in unread] for hand in hands]
    return {"cards": cards, "hands": read, "warnings": warnings}


def test_the_labels_name_the_players_and_the_cards_as_read_where_nothing_was_corrected() -> None:
    scan = _scan(DEAL)
    labels = photo_labels([scan], 0, None, PLAYERS)
    assert labels["cards"] == [c for hand in DEAL for c in hand]
    assert labels["seats"][0] == "Begoña · 1o 2o 3o 4o" and labels["seats"][1] == "Iñaki · 1c 2c 3c 4c"
    assert labels["unread"] == []
    # the table holding the cards as read says the same: the copy drawn at upload stands
    assert key(photo_labels([scan], 0, DEAL, PLAYERS)) == key(labels)
    assert places(scan)[0] == DEAL


def test_a_card_corrected_is_labelled_with_the_card_held_over_the_read_struck() -> None:
    scan = _scan(DEAL, unread={"4c"}, low={"2o"})
    held = [list(hand) for hand in DEAL]
    held[0][1] = "5o"  # the unsure 2o was a 5o
    labels = photo_labels([scan], 0, held, PLAYERS)
    assert labels["cards"][1] == ["2o", "5o"] and labels["cards"][0] == "1o"
    assert labels["unread"] == ["4c"]  # the box found but not read: the card named there
    assert labels["seats"][0] == "Begoña · 1o 5o 3o 4o"
    # a place emptied: the read struck, "?" held; a seat the table holds none of: four "?"
    held[3] = None
    held[2][0] = None
    labels = photo_labels([scan], 0, held, PLAYERS)
    assert labels["cards"][7] == ["1e", "?"]  # (4c unread: no card 7 in the scan) and labels["seats"][3] == "Jon · ? ? ? ?"
    kw = for_annotate(labels)
    assert kw["card_labels"][1] == ("2o", "5o") and kw["seat_labels"] == labels["seats"]


def test_the_labels_of_a_second_photo_follow_the_showdown_read_together() -> None:
    first = _scan(DEAL, low={"2o"})
    second = _scan(DEAL)
    held = [list(hand) for hand in DEAL]
    held[1][0] = "7c"  # 1c was a 7c: in both photos
    for index in (0, 1):
        labels = photo_labels([first, second], index, held, PLAYERS)
        assert ["1c", "7c"] in labels["cards"]
        assert labels["seats"][1] == "Iñaki · 7c 2c 3c 4c"


def _texts(monkeypatch) -> list:
    said: list = []
    real = annotate_mod._label

    def spy(draw, size, at, text, *args, **kw):
        said.append(text)
        return real(draw, size, at, text, *args, **kw)

    monkeypatch.setattr(annotate_mod, "_label", spy)
    return said


def test_the_command_lines_labels_are_as_they_were(monkeypatch) -> None:
    said = _texts(monkeypatch)
    scan = _scan(DEAL, unread={"4c"})
    annotate_fn(Image.new("RGB", (800, 600), (90, 90, 90)), scan)
    assert "1o 97% S0" in said and "2c 97% S1" in said and "?" in said
    assert "seat 0: 1o 2o 3o 4o" in said and "seat 1: 1c 2c 3c" in said
    assert not any("·" in str(s) for s in said)


def test_annotate_draws_the_labels_it_is_given(monkeypatch) -> None:
    said = _texts(monkeypatch)
    scan = _scan(DEAL, unread={"4c"})
    held = [list(hand) for hand in DEAL]
    held[0][1] = "5o"
    labels = photo_labels([scan], 0, held, PLAYERS)
    annotate_fn(Image.new("RGB", (800, 600), (90, 90, 90)), scan, **for_annotate(labels))
    assert ("2o", "5o") in said and "4c" in said and "Begoña · 1o 5o 3o 4o" in said
    assert not any("%" in str(s) or "seat" in str(s) for s in said)


def test_accented_and_basque_names_are_written_as_typed() -> None:
    font = annotate_mod._font(24)
    for name in ("Begoña", "Iñaki", "Josu Agirre Etxeberría", "Ánxela", "Françoise", "Œdipe"):
        assert annotate_mod.drawable(font, name) == name
    # each letter drawn: ñ is not n, nor the empty box of a letter the font lacks
    assert bytes(font.getmask("ñ")) not in (bytes(font.getmask("n")), bytes(font.getmask("\ue000")))
    # a font without them (Pillow's own) writes the letter bare, never an empty box
    plain = ImageFont.load_default(size=24)
    assert annotate_mod.drawable(plain, "Begoña") == "Begona"
    assert annotate_mod.drawable(font, "王 Ane") == "? Ane"


def test_greek_and_cyrillic_names_are_written_in_their_letters() -> None:
    """The font once held Latin letters only: "Γιώργος" and "Дмитрий" were written as
    question marks. A letter of neither (Chinese, Armenian, Hebrew) still is."""
    font = annotate_mod._font(24)
    for name in ("Γιώργος Παπαδόπουλος", "Ελένη", "Дмитрий", "Олена Їжакевич", "Ђорђе", "Әлия"):
        assert annotate_mod.drawable(font, name) == name
        for ch in set(name) - {" "}:  # a glyph of its own: not the font's empty box
            assert bytes(font.getmask(ch)) != bytes(font.getmask("\ue000")), ch
    # the label drawn is the name's letters, not the "?" it was drawn as
    def drawn(text: str) -> bytes:
        img = Image.new("RGB", (400, 60), (255, 255, 255))
        annotate_mod._label(ImageDraw.Draw(img), img.size, (0, 0), text, font, (255, 255, 255), [])
        return img.tobytes()

    assert drawn("Γιώργος") != drawn("???????") and drawn("Дмитрий") != drawn("???????")
    for name, fallback in (("王 Ane", "? Ane"), ("Արամ", "????"), ("דוד", "???"), ("Jón 王", "Jón ?")):
        assert annotate_mod.drawable(font, name) == fallback
    assert annotate_mod.drawable(font, "Ǹ̃") == "Ǹ?"  # a mark that joins no letter: "?" as before


def test_a_struck_label_has_a_line_through_the_read() -> None:
    img = Image.new("RGB", (400, 200), (255, 255, 255))
    draw = ImageDraw.Draw(img)
    font = annotate_mod._font(30)
    rect = annotate_mod._label(draw, img.size, (20, 100), ("12o", "5c"), font, (255, 255, 255), [])
    px = np.asarray(img.convert("L"))[rect[1]:rect[3], rect[0]:rect[2]]
    x_end = rect[0] + draw.textbbox((0, 0), "12o", font=font)[2]
    # some row under the read is dark all the way across it: the line through it
    assert (px[:, 4:x_end - rect[0] - 2] < 100).all(axis=1).any()


# -- through the API ------------------------------------------------------------------

def _post(client, t, path: str, **body):
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    return client.post(f"/api/tables/{t['id']}/{path}", headers=t["auth"],
                       json={"client_id": f"{path}-{s['version']}", "version": s["version"], **body})


@pytest.mark.webapi
def test_the_annotated_copy_is_drawn_again_when_a_card_is_corrected_or_a_player_renamed(tmp_path, monkeypatch) -> None:
    from web import api
    from web.testing import FakeRecognizer, showdown_photo

    app = create_app({"DATABASE": str(tmp_path / "mus.db"), "TESTING": True,
                      "RECOGNIZER": FakeRecognizer(DEAL, low_conf={"2o"})})
    client = app.test_client()
    t = client.post("/api/tables", json={"players": PLAYERS}).json
    t["auth"] = {"Authorization": f"Bearer {t['token']}"}
    drawn: list = []
    real = api._draw_annotated

    def counted(photo, scan, labels=None):
        drawn.append(labels)
        return real(photo, scan, labels)

    monkeypatch.setattr(api, "_draw_annotated", counted)
    up = client.post(f"/api/tables/{t['id']}/photos", headers=t["auth"], content_type="multipart/form-data",
                     data={"photo": (io.BytesIO(showdown_photo(DEAL)), "showdown.jpg")}).json
    url = f"{up['annotated_url']}?token={t['watch_token']}"
    store = app.extensions["mus_store"]

    def stored_labels() -> str:
        return store.db.reader().execute("SELECT labels FROM photos WHERE id = ?", (up["photo_id"],)).fetchone()[0]

    # drawn at upload with the players' names, the cards as read: served as it is
    assert "Begoña · 1o 2o 3o 4o" in stored_labels() and "seat 0" not in stored_labels()
    first = client.get(url)
    assert first.status_code == 200 and drawn == []
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    for i in range(80):  # to the showdown
        if s["current"]["phase"] in ("showdown", "over"):
            break
        s = client.post(f"/api/tables/{t['id']}/actions", headers=t["auth"],
                        json={"client_id": f"a{i}", "version": s["version"], "action": s["current"]["legal"][0]}).json
    # the page keeps the cards as read: the copy stands (a 304)
    assert _post(client, t, "shown", hands=DEAL, photo_id=up["photo_id"]).status_code == 200
    assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304 and drawn == []
    # a card corrected: drawn again (once), the read struck under the card held
    fixed = [list(hand) for hand in DEAL]
    fixed[0][1] = "5o"
    assert _post(client, t, "shown", hands=fixed, photo_id=up["photo_id"]).status_code == 200
    again = client.get(url, headers={"If-None-Match": first.headers["ETag"]})
    assert again.status_code == 200 and again.headers["ETag"] != first.headers["ETag"]
    assert len(drawn) == 1 and drawn[0]["cards"][1] == ["2o", "5o"] and drawn[0]["seats"][0] == "Begoña · 1o 5o 3o 4o"
    assert client.get(url, headers={"If-None-Match": again.headers["ETag"]}).status_code == 304 and len(drawn) == 1
    # settled with those cards: the same copy; a player renamed: drawn again with the new name
    assert _post(client, t, "showdown", hands=fixed, photo_id=up["photo_id"]).status_code == 200
    assert client.get(url, headers={"If-None-Match": again.headers["ETag"]}).status_code == 304 and len(drawn) == 1
    s = client.get(f"/api/tables/{t['id']}", headers=t["auth"]).json
    r = client.patch(f"/api/tables/{t['id']}", headers=t["auth"],
                     json={"client_id": "ren", "version": s["version"], "players": ["Bego", *PLAYERS[1:]]})
    assert r.status_code == 200
    renamed = client.get(url, headers={"If-None-Match": again.headers["ETag"]})
    assert renamed.status_code == 200 and len(drawn) == 2 and drawn[1]["seats"][0] == "Bego · 1o 5o 3o 4o"
    assert "Bego · 1o 5o 3o 4o" in stored_labels()


def test_a_card_a_second_photo_finds_is_labelled_as_held_where_the_page_put_it() -> None:
    """Iñaki's 2c is found unread in the first photo and read in the second: the page keeps
    1c 3c 4c where they were and puts the 2c in the place left (1c 3c 4c 2c), where the
    photos read together list it second. Nothing was corrected: no label is struck (the
    labels compared each read with the place at its index: 2c over 3c, 3c over 4c...)."""
    first, second = _scan(DEAL, unread={"2c"}), _scan(DEAL)
    held = [list(hand) for hand in DEAL]
    held[1] = ["1c", "3c", "4c", "2c"]
    for index in (0, 1):
        labels = photo_labels([first, second], index, held, PLAYERS)
        assert not any(isinstance(x, list) for x in labels["cards"] + labels["unread"]), labels
        assert labels["seats"][1] == "Iñaki · 1c 3c 4c 2c"
    # a card then corrected there is still said as such, at the place holding it
    held[1][1] = "7c"
    labels = photo_labels([first, second], 1, held, PLAYERS)
    assert ["3c", "7c"] in labels["cards"] and sum(isinstance(x, list) for x in labels["cards"]) == 1, labels


def test_a_name_typed_with_combining_accents_is_written_as_its_letters() -> None:
    """A name whose accents come as combining marks (NFD: "n" then U+0303, as some
    keyboards and pasted text give it) was written "Begon?a": each mark, alone, is a
    letter the font lacks. It is written as the letters it makes ("Begoña")."""
    import unicodedata

    font = annotate_mod._font(24)
    for name in ("Begoña", "Jón Ñúñez", "Françoise"):
        assert annotate_mod.drawable(font, unicodedata.normalize("NFD", name)) == name


def test_a_seat_read_with_five_keeps_its_four_surest_as_the_page_does() -> None:
    """A fifth read for a seat, unsure and first in the reader's order, is left out of the
    places as the table page leaves it out (`fillFromScan` keeps the four surest)."""
    scan = _scan(DEAL)
    scan["cards"].insert(0, {"card": "7o", "conf": 0.38, "box": [12, 12, 82, 92], "seat": 0})
    scan["hands"][0] = ["7o", *scan["hands"][0]]
    assert places(scan)[0][0] == DEAL[0]
    labels = photo_labels([scan], 0, None, PLAYERS)
    assert labels["seats"][0] == "Begoña · 1o 2o 3o 4o"


def test_a_hand_settled_without_cards_labels_the_photo_as_read() -> None:
    """A hand counted "sin cartas" holds four empty hands: its photo is labelled as read,
    not every card struck over "?"."""
    scan = _scan(DEAL)
    labels = photo_labels([scan], 0, [[None] * 4 for _ in range(4)], PLAYERS)
    assert labels["cards"] == [c for hand in DEAL for c in hand]
    assert labels["seats"][0] == "Begoña · 1o 2o 3o 4o"
