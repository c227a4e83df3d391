import { getEncoder } from './src/encoders/create-encoder.ts';
import { countBounded } from './src/bounded/bounded-count.ts';
import { randomBytes } from 'node:crypto';
function cjk(n: number) { let s=''; let x=12345; for (let i=0;i<n;i++){ x=(x*1103515245+12345)&0x7fffffff; s+=String.fromCharCode(0x4e00 + (x % 20000)); } return s; }
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
const text = cjk(200_000);
const b64 = randomBytes(300_000).toString('base64');
const bounds = { maxRunBytes: 256, sliceLength: 16384, tokensPerCut: 2 };
for (const backend of ['gpt-tokenizer', 'tiktoken-wasm', 'js-tiktoken', 'gpt-tokenizer'] as const) {
  const enc = getEncoder('o200k_base', backend);
  for (const [name, s] of [['cjk', text], ['b64', b64]] as const) {
    countBounded(enc, s.slice(0, 20000), bounds);
    let t = cpu(); const c = countBounded(enc, s, bounds); const ms = cpu() - t;
    console.log(backend, name, c, ms.toFixed(0), 'ms cpu', (Buffer.byteLength(s)/1e6/(ms/1000)).toFixed(2), 'MB/s');
  }
}
