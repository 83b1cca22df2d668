// Optional sounds, off by default (the display settings' "Sounds"): a short tone for a move,
// a card home, a refusal, and a rising pair when a rival finishes. Made with Web Audio
// oscillators, so no sound files; no AudioContext is even created until sounds are on.
import { readDisplay } from "./keyboard.js";

const TONES = {
  move: [[520, 0.05]],
  home: [[660, 0.06], [880, 0.08]],
  refused: [[190, 0.14]],
  rival: [[523, 0.08], [784, 0.12]],
};

let audio = null;
/** What was played, newest last (for tests and the curious; at most 50). */
export const played = [];

export function enabled() {
  return !!readDisplay().sounds;
}

/** Play the sound of `kind` (move, home, refused, rival) when sounds are on. */
export function sound(kind) {
  if (!enabled() || !TONES[kind]) return false;
  played.push(kind);
  if (played.length > 50) played.shift();
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    let at = audio.currentTime;
    for (const [freq, length] of TONES[kind]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      gain.gain.setValueAtTime(0.08, at);
      gain.gain.exponentialRampToValueAtTime(0.001, at + length);
      osc.connect(gain).connect(audio.destination);
      osc.start(at);
      osc.stop(at + length);
      at += length;
    }
  } catch (err) { /* no audio device: silence */ }
  return true;
}

/** Whether an AudioContext exists (none until a sound was played with sounds on). */
export function audioStarted() {
  return audio !== null;
}
