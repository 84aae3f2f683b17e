import { BuiltinEmbedder, dot } from '@hindsight/embedding';

const e = new BuiltinEmbedder({ dimension: 512 });
const q = process.argv[2]!;
const texts = process.argv.slice(3);
const [qv, ...vs] = await e.embed([q, ...texts]);
const al = await e.align(q, texts);
texts.forEach((t, i) => console.log(dot(qv!, vs[i]!).toFixed(3), (al?.[i] ?? 0).toFixed(3), t));
