import { getEncoder } from './src/encoders/create-encoder.ts';
const alphabets = ['a', 'ab', 'abc', 'aA', 'a1', 'ABab', 'xyz0123+/=', 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/', '的一是不了人我在有他这为之大来以个中上们', 'あいうえおかきくけこ', '!?.,;:-=+*/\\(){}[]<>"\'', ' \t\n', 'e\u0301a\u0300', 'Ωωαβγδ', 'ab !c\n/1\'s', 'абвгд'];
let seed = 1; const rnd = () => { seed = (seed * 1103515245 + 12345) & 0x7fffffff; return seed / 0x80000000; };
for (const encName of ['o200k_base', 'cl100k_base'] as const) {
  const enc = getEncoder(encName);
  const hist = new Map<number, number>();
  let worst = 0;
  for (let trial = 0; trial < 40000; trial++) {
    const alpha = [...alphabets[Math.floor(rnd() * alphabets.length)]!];
    const n = 2 + Math.floor(rnd() * 60);
    let s = ''; for (let i = 0; i < n; i++) s += alpha[Math.floor(rnd() * alpha.length)];
    const cps = [...s]; const cut = 1 + Math.floor(rnd() * (cps.length - 1));
    const a = cps.slice(0, cut).join(''), b = cps.slice(cut).join('');
    const d = enc.countTokens(s) - enc.countTokens(a) - enc.countTokens(b);
    hist.set(d, (hist.get(d) ?? 0) + 1);
    if (d > worst) { worst = d; console.log(encName, 'deficit', d, JSON.stringify(a), JSON.stringify(b)); }
  }
  console.log(encName, [...hist].sort((x, y) => x[0] - y[0]));
}
