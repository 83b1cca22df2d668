// node --test: client/web/deals.js against the test vectors of docs/deals.md (parsed from the
// document itself, so the page, the Python engine and the JavaScript cannot drift apart).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { commitment, keyBytes, positionText, shuffled, verify, WordStream, cardText }
  from "../../client/web/deals.js";

const doc = readFileSync(fileURLToPath(new URL("../../docs/deals.md", import.meta.url)), "utf8");

function blocks(lang) {
  const re = new RegExp("```" + lang + "\\n([\\s\\S]*?)```", "g");
  return [...doc.matchAll(re)].map((m) => m[1]);
}

const vectors = blocks("deal").map((text) => {
  const lines = text.trim().split("\n");
  const head = Object.fromEntries(lines.slice(0, 3).map((l) => l.split(" ", 2)));
  const options = Object.fromEntries(head.options.split(",").filter(Boolean).map((kv) => kv.split("=")));
  return { variant: head.variant, options, seed: head.seed, position: lines.slice(3).join(" ") };
});

test("the document has vectors for every variant", () => {
  assert.equal(new Set(vectors.map((v) => v.variant)).size, 5);
  assert.equal(vectors.length, 15);
});

for (const v of vectors) {
  test(`deal ${v.variant} seed ${v.seed}`, async () => {
    assert.equal(await positionText(v.seed, v.variant, v.options), v.position);
  });
}

test("commitments table", async () => {
  const rows = [...doc.matchAll(/^\| (\d+) \| ([0-9a-f]{16}) \| ([0-9a-f]{64}) \|$/gm)];
  assert.equal(rows.length, 3);
  for (const [, seed, , digest] of rows) assert.equal(await commitment(seed), digest);
  assert.equal(await commitment(18446744073709551615n), rows[2][3]);
});

test("worked example: key, blocks, words, below and the shuffle", async () => {
  const ex = Object.fromEntries(blocks("prng-example")[0].trim().split("\n")
    .map((l) => { const [k, ...rest] = l.split(/\s+/); return [k, rest.join(" ")]; }));
  const key = keyBytes(ex.seed, ex.context);
  assert.equal(Buffer.from(key).toString("hex"), ex.key);
  const stream = new WordStream(key);
  const words = [];
  for (let i = 0; i < 8; i++) words.push(await stream.next());
  assert.equal(words.join(" "), ex.u32);
  await stream.next();
  assert.equal(Buffer.from(stream.blocks[0]).toString("hex"), ex.block0);
  assert.equal(Buffer.from(stream.blocks[1]).toString("hex"), ex.block1);
  const [variant, opts] = ex.context.split("|");
  const options = Object.fromEntries(opts.split(",").map((kv) => kv.split("=")));
  const { faces } = await shuffled(ex.seed, variant, options);
  assert.equal(faces.map(cardText).join(" "), ex.shuffled);
  const fresh = new WordStream(key);
  const draws = [];
  for (let n = 52; n > 52 - ex.below.split(" ").length; n--) draws.push(`${n}:${await fresh.below(n)}`);
  assert.equal(draws.join(" "), ex.below);
});

test("verify accepts the true deal and rejects a wrong seed or commitment", async () => {
  const options = { draw: "1", foundation_takeback: "yes" };
  const view = {
    variant: "unlimited", options,
    piles: {
      f1: [0, []], f2: [0, []], f3: [0, []], f4: [0, []],
      t1: [0, ["8S"]], t2: [1, ["QS"]], t3: [2, ["TC"]], t4: [3, ["5S"]], t5: [4, ["8D"]],
      t6: [5, ["5C"]], t7: [6, ["TD"]], s: [24, []], w: [0, []],
    },
  };
  const good = "af5570f5a1810b7af78caf4bc70a660f0df51e42baf91d4de5b2328de0e83dfc";
  assert.deepEqual(await verify("0", good, view), { commitmentOk: true, dealOk: true });
  assert.deepEqual(await verify("1", good, view), { commitmentOk: false, dealOk: false });
  const other = structuredClone(view);
  other.piles.t1 = [0, ["9S"]];
  assert.deepEqual(await verify("0", good, other), { commitmentOk: true, dealOk: false });
});

test("seeds out of range are refused", async () => {
  await assert.rejects(commitment(-1n), RangeError);
  await assert.rejects(commitment(1n << 64n), RangeError);
});
