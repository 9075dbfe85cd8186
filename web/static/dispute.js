// A dispute (HAND-RECORD.md: seat, lance, kind, rule, effect) in a sentence: who said or
// held what, the rule applied and what it did. The same composition as the engine's
// scorer/engine/explain.py dispute_text (the count in words, the history page, the CLI),
// from the same words (the engine's tables, in the page's strings: lance.*, dispute.*,
// rule.*, effect.*, punct.*) and the same patterns (its grammar(), in the page's boot), so that
// the page says word for word what they say; tests/test_web_browser_table.py holds them
// to it in every language.
// ": " and "; ", in French with a no-break space before the mark: the engine's words, as its
// sentences join their parts (common.js colon, semicolon)
import { t, colon, semicolon } from "./common.js";

const has = (key) => t(key) !== key;
// Python's named group `(?P<name>` is `(?<name>` here; the grammar keeps to what both read alike
const jsPattern = (pattern) => pattern.replaceAll("(?P<", "(?<");
const whole = (pattern) => new RegExp(`^(?:${jsPattern(pattern)})$`);
const name = (players, seat) => (Number.isInteger(seat) && seat >= 0 && seat < players.length ? String(players[seat]) : "?");

// `players`: the four names; `lang`: the page's language (an effect the engine never says is
// said as given to English readers only); `grammar`: the engine's (BOOT.dispute_grammar).
export function disputeText(d, { players = [], lang = "en", grammar }) {
  if (d === null || d === undefined) return "";
  if (typeof d !== "object" || Array.isArray(d)) return String(d);
  const who = name(players, d.seat);
  let text;
  if (grammar.lances.includes(d.lance)) {
    // a lance's own words first, where its grammar asks for them (pares are plural)
    const keys = typeof d.kind === "string" ? [`dispute.${d.kind}_${d.lance}`, `dispute.${d.kind}`] : [];
    const key = keys.find(has) ?? "dispute.other";
    text = t(key, { p: who, l: t(`lance.${d.lance}`).toLowerCase() });
  } else {
    text = `${who}${colon()}${d.message || d.kind || ""}`.replace(/[: \u00a0]+$/, "");
  }
  if (d.rule) text += ` (${ruleText(d.rule, grammar)})`;
  const effect = effectText(d.effect, players, lang, grammar);
  if (effect) text += `${colon()}${effect}`;
  return text;
}

// A dispute's rule as players read it: "seed 002 art. 16" names its rulebook, "engine
// ruling (as X)" and "X, over Y" in words; anything else as given.
export function ruleText(rule, grammar) {
  if (typeof rule !== "string") return String(rule ?? "");
  const refs = (text) => text.replaceAll(", seed ", `${semicolon()}seed `).replace(new RegExp(jsPattern(grammar.rule_ref), "g"),
    (m, book, n) => (has(`rule.book_${book}`) ? t("rule.art", { b: t(`rule.book_${book}`), n }) : m));
  const app = whole(grammar.rule_app).exec(rule);
  if (app) return t("rule.app", { r: refs(app[1]) });
  const at = rule.indexOf(grammar.rule_over);
  if (at >= 0) return t("rule.over", { r: refs(rule.slice(0, at)), o: refs(rule.slice(at + grammar.rule_over.length)) });
  return refs(rule);
}

// What a dispute did, fact by fact (each clause of its English `effect` read by the
// engine's patterns), in the page's words; an effect the engine never says: as given to
// English readers, else nothing.
function effectText(effect, players, lang, grammar) {
  const facts = effectFacts(effect, grammar);
  if (!facts) return lang === "en" && typeof effect === "string" ? effect : "";
  return facts.map(([key, fields]) => t(`effect.${key}`, {
    o: grammar.lances.includes(fields.o) ? t(`lance.${fields.o}`).toLowerCase() : (fields.o ?? ""),
    p: "s" in fields ? name(players, Number(fields.s)) : "",
  })).join(semicolon());
}

function effectFacts(effect, grammar) {
  if (typeof effect !== "string" || !effect.trim()) return null;
  const facts = [];
  for (const clause of effect.split("; ")) {
    let fact = null;
    for (const [pattern, key] of grammar.effects) {
      const m = whole(pattern).exec(clause.trim());
      if (!m) continue;
      const fields = Object.fromEntries(Object.entries(m.groups || {}).filter(([, v]) => v !== undefined));
      fact = [key.replace(/\{(\w+)\}/g, (all, k) => fields[k] ?? all), fields];
      break;
    }
    if (!fact) return null;
    facts.push(fact);
  }
  return facts;
}
