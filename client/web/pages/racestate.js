// A race as the events tell it: fold a summary and events (in version order) into who races,
// the state, the times and every racer's progress (spectator counts and presence are frames,
// not events: the connection keeps them). Pure: the same events give the same state.

const ORDER = ["lobby", "countdown", "running", "finished", "closed"];

export function fold(summary, events) {
  const s = {
    race: summary.race, code: summary.code, variant: summary.variant, options: summary.options,
    seats: summary.seats, time_limit: summary.time_limit, rated: summary.rated,
    kind: summary.kind, state: summary.state, host: summary.host,
    commitment: summary.commitment, starts_at: summary.starts_at, started_at: summary.started_at,
    ends_at: summary.ends_at, racers: new Map(), progress: new Map(), spectators: summary.spectators || 0,
    start: null, end: null, v: 0,
    winnable: Boolean(summary.winnable), verdict: summary.verdict || null,
    tournament: summary.tournament || null, deal: summary.deal || null,
  };
  for (const r of summary.racers || []) s.racers.set(r.player, { ...r });
  const raise = (state) => {
    if (ORDER.indexOf(state) > ORDER.indexOf(s.state)) s.state = state;
  };
  for (const e of events) {
    s.v = Math.max(s.v, e.v);
    switch (e.k) {
      case "join": s.racers.set(e.player, { player: e.player, name: e.name, ready: false, ...(e.title ? { title: e.title } : {}), ...(s.racers.get(e.player) || {}) }); break;
      case "leave": s.racers.delete(e.player); break;
      case "ready": if (s.racers.has(e.player)) s.racers.get(e.player).ready = true; break;
      case "countdown": s.starts_at = e.starts_at; s.commitment = e.commitment; raise("countdown"); break;
      case "start": s.started_at = e.started_at; s.ends_at = e.ends_at; s.start = e.view; raise("running"); break;
      case "progress": {
        // progress_at as the standings count it (section 11): the last move that put more
        // cards home than before it (from the dealt count, or the racer's previous event)
        const was = s.progress.get(e.player);
        const before = was ? was.home : (s.start ? s.start.home : e.home);
        const at = e.home > before ? e.elapsed : (was ? was.progress_at : null);
        s.progress.set(e.player, { home: e.home, moves: e.moves, elapsed: e.elapsed, result: e.result || null, progress_at: at });
        break;
      }
      case "end": s.end = e; s.verdict = e.verdict || s.verdict; raise("finished"); break;
      case "verdict": s.verdict = e.verdict; break;
      case "closed": raise("closed"); break;
      default: break;
    }
  }
  return s;
}

/** The solver's verdict on a finished race's deal (docs/protocol.md 7.1), in words: only what
 * the server said; null when it said nothing (a server without verdicts). */
export function verdictText(verdict) {
  if (!verdict) return null;
  switch (verdict.outcome) {
    case "won": return `Solver: this deal was winnable in ${verdict.par} moves${verdict.certified ? " (a certified deal)" : ""}.`;
    case "lost": return "Solver: this deal was proved lost — no sequence of moves wins it.";
    case "unknown": return `Solver: undecided within ${verdict.budget || verdict.nodes} positions searched.`;
    case "pending": return "Solver: checking this deal…";
    default: return `Solver: ${verdict.outcome}`;
  }
}

/** Apply a delta (docs/protocol.md 6.4) to a view: the reference rule, nothing more. */
export function applyDelta(view, change) {
  const out = { ...view };
  for (const k of ["moves", "home", "status", "redeals", "redeals_left"]) {
    if (k in change) out[k] = change[k];
  }
  if (change.piles) out.piles = { ...view.piles, ...change.piles };
  return out;
}

/** Every racer's standing if the race ended now, best first: section 11's rule applied to the
 * progress so far (winners by time; then more cards home, earlier progress_at, more moves;
 * then seat). Only what every racer is told: cards home, moves, times, results. */
export function liveStandings(s) {
  const dealt = s.start ? s.start.home : 0;
  const rows = [...s.racers.values()].map((r, seat) => {
    const p = s.progress.get(r.player) || { home: dealt, moves: 0, elapsed: null, result: null, progress_at: null };
    return { player: r.player, name: r.name, seat, home: p.home, moves: p.moves, elapsed: p.elapsed, result: p.result, progress_at: p.progress_at ?? null };
  });
  const late = (x) => (x === null ? Infinity : x);
  rows.sort((a, b) => {
    const aw = a.result === "won", bw = b.result === "won";
    if (aw !== bw) return aw ? -1 : 1;
    if (aw) return a.elapsed - b.elapsed || a.seat - b.seat;
    return b.home - a.home || late(a.progress_at) - late(b.progress_at) || b.moves - a.moves || a.seat - b.seat;
  });
  return rows;
}

/** The racer who leads now (their player id), or null: before the start, with one racer, or
 * while the first two are level on every key but their seats (nobody is ahead yet). */
export function leader(s) {
  if (!s.start || s.racers.size < 2) return null;
  const [a, b] = liveStandings(s);
  const key = (r) => [r.result === "won", r.result === "won" ? r.elapsed : null, r.home, r.progress_at, r.moves].join("|");
  return key(a) === key(b) ? null : a.player;
}
