import { segmentText } from './src/bounded/segment-text.ts';
import { defaultCountingBounds as b } from './src/bounded/counting-bounds.ts';
import { readFileSync } from 'node:fs';
const readme = readFileSync('/work/wt/tokenizer/README.md','utf8') + readFileSync('/work/wt/tokenizer/docs/ARCHITECTURE.md','utf8');
const seg = segmentText(readme, b);
let s = 0; for (const e of seg.ends) { console.log(JSON.stringify(readme.slice(Math.max(s, e - 60), e)), '|', JSON.stringify(readme.slice(e, e + 20))); s = e; }
