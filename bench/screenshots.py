"""Screenshots of the main screens on a 360x740 phone, into a folder.

    python bench/screenshots.py [OUT_DIR] [--lang es]

Starts the real app (waitress, 127.0.0.1, a temporary database, a fake card reader
for the showdown photo), plays a short match through the pages and the API, and
saves one PNG per screen. Needs Debian's Chromium at /usr/bin/chromium.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from web.testing import CHROMIUM, CHROMIUM_ARGS, PHONE, FakeRecognizer, LiveServer, showdown_photo  # noqa: E402

# seat 0: R R R C (medias, juego 40); seat 1: pair of ases; seat 2: pair of 7s; seat 3: nothing
HANDS = [["12o", "12c", "3e", "11b"], ["1o", "2c", "4e", "5b"], ["7o", "7c", "10e", "6b"], ["4o", "5c", "6e", "11o"]]
DECK_KEY = "screenshots-key-0123456789"  # the deck page's admin key, for this run's server only
HOLDS = {"pares": [True, True, True, False], "juego": [True, False, False, False]}


class Table:
    """Drives a table through the API (the other phone at the table)."""

    def __init__(self, base: str, created: dict) -> None:
        import requests

        self.s = requests.Session()
        self.base = base
        self.id = created["id"]
        self.token = created["token"]
        self.watch_token = created["watch_token"]
        self.s.headers["Authorization"] = f"Bearer {self.token}"
        self.n = 0

    def state(self) -> dict:
        return self.s.get(f"{self.base}/api/tables/{self.id}").json()

    def post(self, path: str, body: dict) -> dict:
        self.n += 1
        st = self.state()
        r = self.s.post(f"{self.base}/api/tables/{self.id}/{path}", json={"client_id": f"bench-{self.n}-{time.time()}",
                                                                          "version": st["version"], **body})
        r.raise_for_status()
        return r.json()

    def act(self, action: dict) -> dict:
        return self.post("actions", {"action": action})

    def step(self, grande_bet: int | None = None, stop_at: str | None = None) -> dict:
        """Say one thing: a bet in grande if asked, accept bets, declare the truth, else pass."""
        st = self.state()
        cur = st["current"]
        legal, seat, phase = cur["legal"], cur["to_speak"], cur["phase"]
        acts = {a["act"]: a for a in legal}
        if phase == stop_at:
            return st
        if "declare" in acts:
            lance = "pares" if "pares" in acts["declare"] else "juego"
            return self.act({"seat": seat, "act": "declare", lance: HOLDS[lance][seat]})
        if phase == "grande" and grande_bet and "envido" in acts:
            return self.act({"seat": seat, "act": "envido", "n": grande_bet})
        if "quiero" in acts:
            return self.act({"seat": seat, "act": "quiero"})
        return self.act({"seat": seat, "act": "paso"})

    def play_to(self, phase: str, grande_bet: int | None = None, limit: int = 40) -> dict:
        st = self.state()
        for _ in range(limit):
            if st["current"]["phase"] in (phase, "showdown", "over"):
                return st
            st = self.step(grande_bet)
        return st

    def showdown(self) -> dict:
        return self.post("showdown", {"hands": HANDS})


LEAGUE = {"es": "Liga de invierno", "eu": "Neguko liga", "fr": "Ligue d'hiver", "en": "Winter league"}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default=str(ROOT / "bench" / "screenshots"))
    ap.add_argument("--lang", default="es", choices=["es", "eu", "fr", "en"])
    args = ap.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    import requests
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        print(f"no Chromium at {CHROMIUM}", file=sys.stderr)
        return 2
    photo = out / "_showdown.jpg"
    photo.write_bytes(showdown_photo(HANDS, bottom=0))
    shots: list[str] = []
    server = LiveServer({"RECOGNIZER": FakeRecognizer(HANDS, low_conf={"5c"}, unread={"10e"}), "ADMIN_KEY": DECK_KEY})
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctx = browser.new_context(**PHONE, locale=args.lang, extra_http_headers={"Accept-Language": args.lang})
            page = ctx.new_page()

            def shot(name: str, full: bool = False) -> None:
                page.wait_for_timeout(250)
                path = out / f"{name}.png"
                page.screenshot(path=str(path), full_page=full)
                width = page.evaluate("document.documentElement.scrollWidth")
                note = f"  (SIDEWAYS SCROLL: {width}px)" if width > 360 else ""
                shots.append(path.name + note)

            page.goto(server.url + "/")
            page.fill("input[name=team0]", "Txuriak")
            page.fill("input[name=team1]", "Beltzak")
            for seat, name in enumerate(["Ane", "Bixente", "Iker", "Maite"]):
                page.fill(f"#player{seat}", name)
            shot("01-new-table", full=True)
            page.click("button[type=submit]")
            page.wait_for_url("**/t/**")
            page.wait_for_selector("#live[data-state=live]")
            st = page.evaluate("window.musTable.state")
            token = page.evaluate("new URLSearchParams(location.search).get('token')")
            created = {"id": st["id"], "token": token, "watch_token": page.evaluate("window.musTable.boot.links.watch_token")}
            table = Table(server.url, created)
            page.wait_for_selector("#invite[open]")
            shot("02-invite")
            page.keyboard.press("Escape")
            shot("02-table-start")

            page.click("#btn-mus")
            page.click(".act[data-act=envido][data-n='2']")
            page.wait_for_selector(".act[data-act=quiero]")
            shot("03-envido")
            page.click(".act[data-act=mas]")
            page.wait_for_selector("#felt-bet:not(:empty)")
            page.click(".act[data-act=quiero]")
            table.play_to("pares_declare")
            table.step()
            table.step()
            page.wait_for_timeout(600)
            shot("04-declare")
            table.play_to("showdown")
            page.wait_for_selector("#showdown:not([hidden])")
            page.set_input_files("#photo-input", str(photo))
            page.wait_for_selector("#photo-boxes g.box")
            page.locator("#showdown").scroll_into_view_if_needed()
            page.evaluate("document.getElementById('showdown').scrollIntoView()")
            shot("05-showdown-photo")
            page.evaluate("document.getElementById('hands-grid').scrollIntoView()")
            shot("05b-showdown-to-check")
            # 5c, read with low confidence
            k = page.evaluate("[...document.querySelectorAll('#photo-boxes g.box')].find(g => g.textContent === '5c?').dataset.k")
            page.click(f"#photo-boxes g.box[data-k='{k}']")
            page.wait_for_selector("#picker[open]")
            shot("06-card-picker")
            page.click("#picker .pick[data-card='5c']")
            page.click("#photo-boxes g.box[data-k='u0']")  # 10e, found but not read
            page.click("#picker .pick[data-card='10e']")
            page.evaluate("document.getElementById('hands-grid').scrollIntoView()")
            shot("07-showdown-cards")
            page.click("#btn-settle")
            page.wait_for_selector("#settlement:not([hidden])")
            page.evaluate("window.scrollTo(0, 0)")
            shot("08-count", full=True)


            # more hands through the API: the score climbs to adentro, then the game ends
            table.play_to("showdown", grande_bet=22)
            table.showdown()
            page.wait_for_timeout(800)
            page.evaluate("window.scrollTo(0, 0)")
            shot("10-adentro", full=True)
            table.play_to("showdown", grande_bet=10)
            table.showdown()
            page.wait_for_selector("#endgame[open]")
            shot("11-game-over")
            page.click("#endgame-close")

            page.goto(f"{server.url}/t/{table.id}/history?token={table.token}")
            shot("12-history", full=True)
            page.goto(f"{server.url}/t/{table.id}/sheet?token={table.token}")
            shot("13-sheet", full=True)

            watch = ctx.browser.new_context(**PHONE, extra_http_headers={"Accept-Language": "eu-ES,eu;q=0.9"})
            wpage = watch.new_page()
            table.act({"seat": table.state()["current"]["to_speak"], "act": "envido", "n": 2})
            wpage.goto(f"{server.url}/w/{table.id}?token={table.watch_token}")
            wpage.wait_for_selector("#live[data-state=live]")
            wpage.wait_for_timeout(300)
            wpage.screenshot(path=str(out / "14-watch-eu.png"))
            shots.append("14-watch-eu.png")
            watch.close()

            page.goto(server.url + "/?lang=fr")
            shot("15-new-table-fr")

            # an órdago accepted in a one-vaca match: the cards decide the game and the match
            page.goto(server.url + f"/?lang={args.lang}")  # back to the language asked for
            r = requests.post(f"{server.url}/api/tables", json={
                "teams": ["Txuriak", "Beltzak"], "players": ["Ane", "Bixente", "Iker", "Maite"],
                "rules": {"vacas_to_win": 1}, "esku": 0})
            quick = Table(server.url, r.json())
            quick.act({"seat": 0, "act": "ordago"})
            quick.act({"seat": 1, "act": "quiero"})
            page.goto(f"{server.url}/t/{quick.id}?token={quick.token}")
            page.wait_for_selector("#showdown:not([hidden])")
            shot("16-ordago")
            quick.showdown()
            page.wait_for_selector("#endgame[open]")
            shot("17-match-over")

            # a tournament holding both tables: standings, matches, the organiser's buttons
            tour = requests.post(f"{server.url}/api/tournaments", json={"name": LEAGUE[args.lang]}).json()
            for t in (table, quick):
                requests.post(f"{server.url}/api/tournaments/{tour['id']}/tables",
                              headers={"Authorization": f"Bearer {tour['token']}"},
                              json={"table": t.id, "token": t.token}).raise_for_status()
            page.goto(f"{server.url}/c/{tour['id']}?token={tour['token']}")
            page.wait_for_selector(".standings-table")
            shot("18-tournament", full=True)
            # the same league played home and away by three teams: fixtures by round, both legs
            requests.put(f"{server.url}/api/tournaments/{tour['id']}/teams",
                         headers={"Authorization": f"Bearer {tour['token']}"},
                         json={"teams": ["Txuriak", "Beltzak", "Gorriak"], "legs": 2,
                               "start": "2026-12-03"}).raise_for_status()
            page.goto(f"{server.url}/c/{tour['id']}?token={tour['token']}")
            page.eval_on_selector("#league-teams", "d => d.open = true")
            shot("19-league", full=True)
            # its final between the top two, played at a new table (the quick match again): the champions
            auth = {"Authorization": f"Bearer {tour['token']}"}
            requests.put(f"{server.url}/api/tournaments/{tour['id']}/knockout", headers=auth,
                         json={"teams": ["Txuriak", "Beltzak"]}).raise_for_status()
            played = requests.get(f"{server.url}/api/tables/{quick.id}/export",
                                  headers={"Authorization": f"Bearer {quick.token}"}).text
            final = requests.post(f"{server.url}/api/tables/import", data=played.encode(),
                                  headers={"Content-Type": "application/x-ndjson"}).json()
            requests.post(f"{server.url}/api/tournaments/{tour['id']}/tables", headers=auth,
                          json={"table": final["id"], "token": final["token"]}).raise_for_status()
            page.goto(f"{server.url}/c/{tour['id']}?token={tour['token']}")
            page.wait_for_selector(".banner.champion")
            shot("20-final", full=True)
            # a saved match chosen in the import form (its button and the file's name in the page's words)
            saved = out / "_match.jsonl"
            saved.write_bytes(requests.get(f"{server.url}/api/tables/{table.id}/export",
                                           headers={"Authorization": f"Bearer {table.token}"}).content)
            page.goto(server.url + "/")
            page.click("details.import:not(#new-tournament) > summary")
            page.set_input_files("#import-match input[type=file]", str(saved))
            page.locator("#import-match").scroll_into_view_if_needed()
            shot("21-import")
            saved.unlink(missing_ok=True)
            # the deck page, its key given: the four suits' photos to take
            page.goto(f"{server.url}/decks#key={DECK_KEY}")
            page.wait_for_selector("#deck-new", state="visible")
            shot("22-decks", full=True)
            ctx.close()
            browser.close()
    finally:
        server.stop()
        photo.unlink(missing_ok=True)
    for s in shots:
        print(out / s)
    return 0


if __name__ == "__main__":
    sys.exit(main())
