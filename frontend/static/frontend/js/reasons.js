// The server explains a refused move in English (games/engine); the common refusals are said
// again here in the page's language, and anything else is shown as the server wrote it.
const _ = (s) => (window.gettext ? window.gettext(s) : s);
const fmt = (s, o) => (window.interpolate ? window.interpolate(s, o, true) : s);
const ngettext = (one, many, n) => (window.ngettext ? window.ngettext(one, many, n) : n === 1 ? one : many);

function cardText(label) {
  return /^the face-down card at /.test(label) ? _("the face-down card") : label;
}

const RULES = [
  [/^the game has \d+ moves and you have seen \d+/, () => _("the game had moved on elsewhere: here is where it stands now")],
  [/^(\S+) \+ (\S+) is (\d+), not (\d+)$/, (m) => fmt(_("%(a)s + %(b)s makes %(sum)s, not %(target)s"), { a: m[1], b: m[2], sum: m[3], target: m[4] })],
  [/^(.+) is covered by (\d+) cards?$/, (m) => fmt(ngettext("%(card)s is covered by %(n)s card", "%(card)s is covered by %(n)s cards", Number(m[2])), { card: cardText(m[1]), n: m[2] })],
  [/^in \S+ every pair needs a pyramid card$/, () => _("every pair needs a pyramid card")],
  [/^(W\d) pairs only with another waste card$/, () => _("a card under the waste top pairs only with another waste card")],
  [/^the card at \S+ is already gone$/, () => _("that card is already gone")],
  [/^the stock is empty: turn the waste over with R$/, () => _("the stock is empty: turn the waste over")],
  [/^the stock is empty and no redeal is left$/, () => _("the stock is empty and no redeal is left")],
  [/^no redeal is left/, () => _("no redeal is left")],
  // unlimited: a recycle needs a card removed in the pass before it
  [/^this pass through the stock removed no card/, () => _("this pass through the stock removed no card: another would deal the same cards again")],
  [/^the stock is empty and this pass through the stock removed no card/, () =>
    _("the stock is empty and this pass through the stock removed no card: another would deal the same cards again")],
  [/^the stock still has/, () => _("the stock is not empty yet: draw first")],
  [/^you may draw only when nothing can be removed: (\S+) \+ (\S+) \(\S+\) make (\d+)$/, (m) =>
    fmt(_("you may draw only when nothing can be removed: %(a)s + %(b)s make %(sum)s"), { a: cardText(m[1]), b: cardText(m[2]), sum: m[3] })],
  [/^you may draw only when nothing can be removed: (\S+) \(\S+\) counts \d+ and leaves alone$/, (m) =>
    fmt(_("you may draw only when nothing can be removed: %(card)s leaves alone"), { card: cardText(m[1]) })],
  [/^you may draw only when nothing can be removed/, () => _("you may draw only when nothing can be removed")],
  [/^only the top card of the waste \(W\) is in play$/, () => _("only the top card of the waste is in play")],
  [/^only the top (\d+) cards of the waste \(W to W\d+\) are in play$/, (m) =>
    fmt(ngettext("only the top %(n)s card of the waste is in play", "only the top %(n)s cards of the waste are in play", Number(m[1])), { n: m[1] })],
  [/^(\S+) counts (\d+): only a king leaves alone/, (m) => fmt(_("%(card)s counts %(n)s: only a king leaves alone"), { card: m[1], n: m[2] })],
  // the end of a game (games/engine/game.py, ``_status``; games/services.py, a finished game)
  [/^the game is over: the pyramid is cleared$/, () => _("the game is over: the pyramid is cleared")],
  [/^the game is over: no move is left$/, () => _("the game is over: no move is left")],
  [/^the game is over: no free pyramid card can ever be removed/, () => _("the game is over: no free pyramid card can ever be removed")],
  [/^the game is over: no card can be removed, and this pass through the stock removed none$/, () =>
    _("the game is over: no card can be removed, and this pass through the stock removed none")],
  [/^the game is over: the stock is through and no pair is left between the free cards and the deck$/, () =>
    _("the game is over: the stock is through and no pair is left between the free cards and the deck")],
  [/^the game is over \(\w+\): no more moves$/, () => _("the game is over: no more moves")],
  // the waste, the stock and the pyramid's places
  [/^the waste is empty: there is nothing to turn over$/, () => _("the waste is empty: there is nothing to turn over")],
  [/^the waste is empty$/, () => _("the waste is empty")],
  [/^the waste holds only (\d+) cards?$/, (m) =>
    fmt(ngettext("the waste holds only %(n)s card", "the waste holds only %(n)s cards", Number(m[1])), { n: m[1] })],
  [/^the stock is empty$/, () => _("the stock is empty")],
  [/^draw a card first \(D\)$/, () => _("draw a card first")],
  [/^in \S+ a drawn card goes to the waste: play it as W$/, () => _("a drawn card goes to the waste: play it from there")],
  [/^there is no \S+: the pyramid has (\d+) rows$/, (m) => fmt(_("there is no such place: the pyramid has %(n)s rows"), { n: m[1] })],
  [/^a move removes one king or two different cards$/, () => _("a move removes one king or two different cards")],
  // forty-house's house rules
  [/^\S+ has no put-back rule$/, () => _("this game has no rule for putting a card back")],
  [/^only the card just drawn can go back into the stock$/, () => _("only the card just drawn can go back into the stock")],
  [/^(\S+) may go back only while the other three of its rank lie free in the pyramid$/, (m) =>
    fmt(_("%(card)s may go back only while the other three of its rank lie free in the pyramid"), { card: m[1] })],
  [/^the stock is empty: there is nothing to put the card under$/, () => _("the stock is empty: there is nothing to put the card under")],
  [/^the stock has (\d+) cards?: put the card under 1 to \d+ of them$/, (m) =>
    fmt(ngettext("the stock has %(n)s card: put the card under it", "the stock has %(n)s cards: put the card under 1 to %(n)s of them", Number(m[1])), { n: m[1] })],
  [/^\S+ has no rule for returning the first three cards$/, () => _("this game has no rule for returning the first three cards")],
  [/^the first three cards have already gone back once$/, () => _("the first three cards have already gone back once")],
  [/^the three cards go back only right after the first three draws, before any pair is made$/, () =>
    _("the three cards go back only right after the first three draws, before any pair is made")],
];

export function localReason(message) {
  for (const [pattern, say] of RULES) {
    const m = pattern.exec(message || "");
    if (m) return say(m);
  }
  return message;
}
