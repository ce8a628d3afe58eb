// Writes media/fetch/testdata/dataurl_node.json: how a browser-grade data: URL
// processor (Node's built-in fetch, i.e. undici's implementation of the WHATWG
// URL parser and "data: URL processor" with forgiving-base64) reads a set of
// data: URLs. The Go tests compare media/fetch's decoder with it.
// Usage: node scripts/golden/fetch_dataurl.mjs   (no packages needed; Node >= 18)
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

const here = dirname(fileURLToPath(import.meta.url));
const out = join(here, '../../media/fetch/testdata/dataurl_node.json');

const urls = [
  'data:image/png;base64,iVBORw0KGgo=',
  'data:image/png;base64,iVBORw0KGgo',
  'DATA:Image/PNG;BASE64,iVBORw0KGgo=',
  'data:image/png; base64,iVBORw0KGgo=',
  'data:image/png;base64,iVBO Rw0K\r\nGgo=',
  'data:image/png;base64,iVBORw0KGgo%3D',
  'data:image/png;base64,%69VBORw0KGgo',
  'data:;base64,SGVsbG8=',
  'data:,Hello%2C%20World%21',
  'data:text/plain;charset=UTF-8,caf%C3%A9',
  'data:image/svg+xml,%3Csvg%2F%3E',
  'data:,',
  'data:;base64,',
  'data:image/jpeg;base64,/9j/4A==',
  'data:;base64,QQ==',
  'data:;base64,QR==',
  'data:;base64,QUI',
  'data:;base64,QUI=',
  'data:;base64,QUI=  ',
  'data:;base64,Q U I =',
  'data:;base64,%51%55%49',
  'data:,a,b',
  'data:;base64,QUJDRA',
  'data:;base64,QUJDREU',
  'data:;base64,QUJDREVG',
  'data:;base64,\tQUJD\fREVG\n',
  // invalid in both
  'data:image/png;base64,iVBORw0KGgo*',
  'data:image/png;base64,iVBORw0KG',
  'data:image/png;base64,iVBORw0KGgo==',
  'data:;base64,Q===',
  'data:;base64,====',
  'data:;base64,=',
  'data:;base64,QQ=',
  'data:;base64,QQ==QQ==',
  'data:;base64,QQ=Q',
  'data:;base64,QUJD%25',
  'data:;base64,QUJDRA%0B==',
  'data:;base64,QUJD!',
  'data:image/png;base64',
];

const results = [];
for (const url of urls) {
  let rec = { url, ok: false, hex: '', content_type: '' };
  try {
    const res = await fetch(url);
    const buf = Buffer.from(await res.arrayBuffer());
    rec = { url, ok: true, hex: buf.toString('hex'), content_type: res.headers.get('content-type') ?? '' };
  } catch (e) {
    // a network error: the URL or its payload is refused
  }
  results.push(rec);
}
writeFileSync(out, JSON.stringify({ generator: `node ${process.version} fetch (undici)`, cases: results }, null, 1) + '\n');
console.log(`wrote ${results.length} cases to ${out}`);
