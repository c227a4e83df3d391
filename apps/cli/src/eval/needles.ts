/**
 * Planted needles: instructions and facts a person might give once, early, in many phrasings,
 * most without the keyword markers (always/never/must) an extractor could key on. Generated from a
 * seeded PRNG so the set is varied but reproducible, and not a fixed list to tune to.
 */

export type NeedleKind = 'instruction' | 'fact';
export type NeedlePlace = 'user' | 'tool';

export interface Needle {
  id: string;
  kind: NeedleKind;
  /** The sentence planted. */
  text: string;
  /** Facts: the later turn that asks for it, and the value its answer must carry. */
  question?: string;
  value?: string;
}

export interface PlantedNeedle extends Needle {
  place: NeedlePlace;
  /** The message it was appended to. */
  messageId: string;
}

/** mulberry32: a small, well-known seeded PRNG (uniform in [0, 1)). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** A stable 32-bit seed from a string (FNV-1a), e.g. a transcript label. */
export function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const digits = (random: Random, count: number) =>
  Array.from({ length: count }, (_, index) =>
    String(Math.floor(random() * (index === 0 ? 9 : 10)) + (index === 0 ? 1 : 0)),
  ).join('');

const languages = ['French', 'German', 'Spanish', 'Italian', 'Portuguese', 'Dutch', 'Swedish'];
const names = ['Marguerite', 'Oswin', 'Thandiwe', 'Ignatius', 'Rosalind', 'Bartholomew', 'Ingrid', 'Leopold'];
const words = ['heron', 'basalt', 'juniper', 'quokka', 'saffron', 'tundra', 'marlin', 'obsidian', 'pergola'];
const cities = ['Lisbon', 'Osaka', 'Tbilisi', 'Montreal', 'Valparaiso', 'Reykjavik', 'Nairobi'];

const instructionMakers: Array<(random: Random) => string> = [
  (r) => `Reply in ${pick(r, languages)} from here on.`,
  (r) => `${pick(r, ['Please use', 'Stick to', 'I prefer'])} British spelling in anything you write for me.`,
  (r) => `Keep your answers under ${pick(r, [60, 80, 120, 150])} words.`,
  (r) => `Call me ${pick(r, names)} from now on.`,
  (r) => `Sign off every reply with "${pick(r, ['Cheers', 'Onward', 'Best, the bot', 'Ta-ra'])}".`,
  (r) =>
    `Write dates as ${pick(r, ['DD/MM/YYYY', 'YYYY-MM-DD', 'the day then the month in words'])} when you mention one.`,
  (r) => `${pick(r, ['Skip', 'Leave out', 'Drop'])} the pleasantries and get straight to the point.`,
  (r) => `Indent code with ${pick(r, ['two', 'four', 'three'])} spaces in your examples.`,
  (_random) => `When you list options, number them instead of using bullets.`,
  (r) => `Answer in the second person and keep a ${pick(r, ['dry', 'warm', 'formal'])} tone.`,
  (r) =>
    `Leave the ${pick(r, ['vendor', 'legacy', 'generated', 'migrations'])} folder alone whatever happens.`,
];

const factMakers: Array<(random: Random) => { text: string; question: string; value: string }> = [
  (r) => {
    const value = digits(r, 4);
    return { text: `My locker code is ${value}.`, question: 'What is my locker code?', value };
  },
  (r) => {
    const value = `${pick(r, words)}-${digits(r, 2)}`;
    return {
      text: `${pick(r, ['Our', 'The team’s'])} staging server is called ${value}.`,
      question: 'What is the staging server called?',
      value,
    };
  },
  (r) => {
    const value = pick(r, names);
    return { text: `My daughter's name is ${value}.`, question: "What is my daughter's name?", value };
  },
  (r) => {
    const value = `${pick(r, words)}${digits(r, 3)}`;
    return {
      text: `The office Wi-Fi password is ${value}.`,
      question: 'What is the office Wi-Fi password?',
      value,
    };
  },
  (r) => {
    const value = `INV-${digits(r, 5)}`;
    return {
      text: `The invoice for the March order was ${value}.`,
      question: 'What was the invoice number for the March order?',
      value,
    };
  },
  (r) => {
    const city = pick(r, cities);
    const value = `${10 + Math.floor(r() * 12)}:${pick(r, ['05', '15', '25', '40', '55'])}`;
    return {
      text: `My flight to ${city} leaves at ${value}.`,
      question: `When does my flight to ${city} leave?`,
      value,
    };
  },
  (r) => {
    const value = `${pick(r, ['QX', 'BR', 'TL', 'MZ'])}-${digits(r, 4)}`;
    return {
      text: `The budget code for this project is ${value}.`,
      question: 'What is the project budget code?',
      value,
    };
  },
];

/**
 * `count` needles from `seed`: about half instructions, half facts, no phrasing twice; the same seed
 * always gives the same needles.
 */
export function generateNeedles(seed: number, count: number): Needle[] {
  const random = seededRandom(seed);
  const instructions = [...instructionMakers.keys()];
  const facts = [...factMakers.keys()];
  const needles: Needle[] = [];
  for (let index = 0; index < count; index += 1) {
    const wantFact = index % 2 === 1;
    const pool = wantFact && facts.length > 0 ? facts : instructions.length > 0 ? instructions : facts;
    const chosen = pool.splice(Math.floor(random() * pool.length), 1)[0];
    if (chosen === undefined) break;
    const id = `needle-${index + 1}`;
    if (pool === facts) {
      const fact = factMakers[chosen]!(random);
      needles.push({ id, kind: 'fact', ...fact });
    } else {
      needles.push({ id, kind: 'instruction', text: instructionMakers[chosen]!(random) });
    }
  }
  return needles;
}
