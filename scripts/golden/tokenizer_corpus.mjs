// Writes tokenizer/testdata/corpus.jsonl: the texts the tokenizer golden files are made from.
// Usage: node scripts/golden/tokenizer_corpus.mjs
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { rng } from './tokenizer_lib.mjs';

const out = join(dirname(fileURLToPath(import.meta.url)), '../../tokenizer/testdata/corpus.jsonl');

const specials = ['<|endoftext|>', '<|im_start|>', '<|im_end|>', '<|object_ref_start|>', '<|object_ref_end|>',
  '<|box_start|>', '<|box_end|>', '<|quad_start|>', '<|quad_end|>', '<|vision_start|>', '<|vision_end|>',
  '<|vision_pad|>', '<|image_pad|>', '<|video_pad|>', '<tool_call>', '</tool_call>', '<|fim_prefix|>',
  '<|fim_middle|>', '<|fim_suffix|>', '<|fim_pad|>', '<|repo_name|>', '<|file_sep|>', '<tool_response>',
  '</tool_response>', '<think>', '</think>'];

const c = [];
const add = (name, text) => c.push({ name, text });

add('empty', '');
add('space', ' ');
add('english', 'The quick brown fox jumps over the lazy dog. It\'s 12:45pm, isn\'t it? We\'ll see; they\'re "fine".');
add('contractions', "I'm you're he's we've they'd she'll it'S I'LL WE'VE THEY'RE don'T x'K x'\u017f '\u212a 's 't'm'd");
add('chinese', '我们今天去公园散步，天气很好。机器学习是人工智能的一个分支。');
add('japanese', '東京は日本の首都です。カタカナとひらがなを混ぜて書きます。ﾊﾝｶｸｶﾅ');
add('korean', '안녕하세요. 오늘은 날씨가 좋네요! 한국어 토크나이저 테스트입니다.');
add('arabic', 'مرحبا بالعالم. هذه جملة باللغة العربية مع أرقام ١٢٣٤٥ و 67890.');
add('hindi', 'नमस्ते दुनिया। यह हिन्दी में एक वाक्य है, क्षत्रिय और ज्ञान।');
add('cyrillic', 'Привет, мир! Съешь же ещё этих мягких французских булок, да выпей чаю.');
add('thai', 'สวัสดีครับ ภาษาไทยไม่มีช่องว่างระหว่างคำ ๑๒๓');
add('greek', 'Καλημέρα κόσμε· ΣΊΣΥΦΟΣ ς σ ΐ');
add('hebrew', 'שלום עולם, זה משפט בעברית.');
add('emoji', 'Hello 👋 world 🌍! Family: 👨‍👩‍👧‍👦, flags: 🇫🇷🇯🇵, skin: 👍🏽, keycap: 1️⃣ #️⃣, heart ❤️‍🔥');
add('emoji_run', '😀😃😄😁😆😅🤣😂🙂🙃😉😊😇🥰😍🤩😘');
add('code_python', 'def fib(n: int) -> int:\n    """Return the n-th Fibonacci number."""\n    if n < 2:\n        return n\n    return fib(n - 1) + fib(n - 2)\n\n\nprint([fib(i) for i in range(10)])\n');
add('code_go', 'package main\n\nimport "fmt"\n\nfunc main() {\n\tfor i := 0; i < 10; i++ {\n\t\tfmt.Printf("%d\\n", i*i)\n\t}\n}\n');
add('code_js', 'const x = {a: 1, b: [2, 3]};\r\nif (x.a !== 1 && x.b?.length >= 2) { console.log(`ok ${x.a}`); }\r\n// comment\r\n');
add('json', '{"id":"chatcmpl-123","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hi!"}}],"usage":{"prompt_tokens":9}}');
add('html', '<!DOCTYPE html><html><head><title>T&amp;C</title></head><body><p class="x">Hi&nbsp;there</p></body></html>');
add('whitespace_runs', 'a    b\t\t\tc     \n\n\n   d        \r\n\r\n   e\u00a0\u00a0f\u3000g \u2003 h');
add('long_spaces', ' '.repeat(300) + 'x' + ' '.repeat(257));
add('trailing_spaces', 'end with spaces   ');
add('only_newlines', '\n\n\n\n');
add('crlf', 'line one\r\nline two\r\n\r\nline four\rcr only\n');
add('tabs', '\tindented\n\t\tdouble\n \t mixed \t\n');
add('digits', '0 1 12 123 1234 12345 3.14159265358979 1,000,000 2026-11-30 +1-555-0100 0x1F ١٢٣ ½ ² Ⅻ');
add('digit_run', '12345678901234567890123456789012345678901234567890');
add('punctuation', '!!! ??? ... --- *** ### $$$ %%% ^^^ &&& ((( ))) [[[ ]]] {{{ }}} ||| \\\\ /// ~~~ ``` """ \'\'\'');
add('mixed_scripts', 'English中文Русскийالعربيةहिन्दीไทย日本語한국어123abc');
add('long_word', 'a'.repeat(600));
add('long_word_mixed', 'Supercalifragilisticexpialidocious'.repeat(20));
add('long_cjk', '测试'.repeat(200));
add('combining', 'e\u0301 a\u0308 n\u0303 A\u030a ﬁ ﬀ Å Ω K ẛ̣ 한 ᄒ ᅡ ᆫ');
add('nfc_needed', 'Cafe\u0301 na\u0131\u0308ve Ame\u0301lie \u1e9b\u0323');
add('controls', 'a\u0000b\u0001c\u007fd\u0085e\u200bf\u200dg\ufeffh\u2028i\u2029j');
add('spaces_unicode', 'a\u001cb\u001dc\u001ed\u001ff\u180eg\u1680h\u2000i\u2005j\u200ak\u202fl\u205fm\u3000n \u0085 o\u000bp\u000cq x\u001c\u001c y\u2003\u2003z\u00a0 \n\u2029w');
add('contractions_unicode', "x'\u212a x'\u017f x'\u212aa '\u0130 'S'T'M'D'RE'VE'LL 'sx 'tx ''s '''");
add('private_and_rare', '\ue000\uf8ff 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 𝟘𝟙𝟚 \u{10ffff} \u{1f9ff}');
add('uppercase', 'HELLO WORLD THIS IS ALL CAPS AND İSTANBUL ΣΟΦΙΑ');
add('markdown', '# Title\n\n- item **bold** _it_\n- [link](https://example.com/a?b=c&d=e#f)\n\n```bash\nls -la | grep "x"\n```\n');
add('url_email', 'Visit https://www.example.org/path/to/page.html?query=1 or mail user.name+tag@example.co.uk');
add('math', '∀x∈ℝ: x² ≥ 0; ∑_{i=1}^{n} i = n(n+1)/2; α≠β → γ ≤ δ');

// Every added token next to text, alone, repeated, and glued together.
for (const [i, s] of specials.entries()) {
  add(`added_${i}`, `x${s}y ${s} z${s}${s}\n${s}`);
}
add('added_alone', '<|im_start|>');
add('added_all', specials.join(''));
add('chat', '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n<|vision_start|><|image_pad|><|image_pad|><|vision_end|>What is in this image?<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\nA cat.<|im_end|>');
add('near_misses', '<|im_start <|IM_START|> <im_start|> |im_start|> <|im_start|| <<|im_start|>> <|im_end|>> <|endoftext <think <|im_sta rt|> <tool_call </think >');
add('flags_test', '<mask> x  <mask>y [SEP]  z foxes fox _fox fox_ fox. (fox) é café hello world HELLO WORLD Hello World AB ＡＢ ab brown browns');
add('tiny', 'abc ab a b c d abcd dcba cab bad xyz aé  abab');
add('nested_added', '<|im_start|><|im_end|><|im_start<|im_end|>|>');

// Seeded random mixes of everything above.
const r = rng(20261130);
const pool = c.filter((e) => e.text.length > 0 && e.text.length < 400).map((e) => e.text);
for (let i = 0; i < 12; i++) {
  let s = '';
  const n = 2 + Math.floor(r() * 4);
  for (let j = 0; j < n; j++) {
    const t = pool[Math.floor(r() * pool.length)];
    const a = Math.floor(r() * t.length);
    const b = Math.min(t.length, a + 1 + Math.floor(r() * 120));
    s += t.slice(a, b);
    if (r() < 0.3) s += specials[Math.floor(r() * specials.length)];
  }
  // Never cut a surrogate pair in half: JSON would carry a lone surrogate, which is not UTF-8.
  s = s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '');
  add(`random_${i}`, s);
}

// Tokenizer variants: the Qwen3 tokenizer.json with top-level keys replaced ("base": "qwen3"),
// or a whole small tokenizer.json ("base": null). Goldens cover every variant.
const extra = (id, content, o) => ({ id, content, single_word: false, lstrip: false, rstrip: false,
  normalized: false, special: false, ...o });
const byteLevel = (o) => ({ type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false, ...o });
const variants = [
  { name: 'qwen3', base: 'qwen3', decode: true, patch: {} },
  { name: 'flags', base: 'qwen3', decode: true, patch: {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKC' }, { type: 'Lowercase' }] },
    added_tokens_append: [
      extra(151669, '<mask>', { lstrip: true, special: true }),
      extra(151670, '[SEP]', { rstrip: true, special: true }),
      extra(151671, 'fox', { single_word: true }),
      extra(151672, 'é', {}),
      extra(151673, 'hello world', { normalized: true }),
      extra(151674, 'AB', { normalized: true, special: true }),
      extra(151675, ' brown', { normalized: true, lstrip: true, rstrip: true }),
    ] } },
  { name: 'gpt2', base: 'qwen3', decode: true, patch: {
    normalizer: null,
    pre_tokenizer: byteLevel({ add_prefix_space: true, use_regex: true }),
    post_processor: { type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '<|endoftext|>', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '<|im_end|>', type_id: 0 } }],
      pair: [{ Sequence: { id: 'A', type_id: 0 } }, { Sequence: { id: 'B', type_id: 1 } }],
      special_tokens: {
        '<|endoftext|>': { id: '<|endoftext|>', ids: [151643], tokens: ['<|endoftext|>'] },
        '<|im_end|>': { id: '<|im_end|>', ids: [151645], tokens: ['<|im_end|>'] } } } } },
  { name: 'splits', base: 'qwen3', decode: true, patch: {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFD' }, { type: 'Strip', strip_left: true, strip_right: true },
      { type: 'Replace', pattern: { String: '  ' }, content: ' ' }, { type: 'Replace', pattern: { Regex: '[0-9]{3}' }, content: '#' },
      { type: 'Prepend', prepend: '>' }] },
    pre_tokenizer: { type: 'Sequence', pretokenizers: [
      { type: 'Split', pattern: { Regex: '\\p{P}' }, behavior: 'MergedWithPrevious', invert: false },
      { type: 'Split', pattern: { String: ' ' }, behavior: 'MergedWithNext', invert: false },
      { type: 'Split', pattern: { Regex: '\\d' }, behavior: 'Contiguous', invert: false },
      { type: 'Split', pattern: { Regex: '\\p{L}+' }, behavior: 'Isolated', invert: true },
      { type: 'Split', pattern: { Regex: '\\t' }, behavior: 'Removed', invert: false },
      byteLevel({})] } } },
  { name: 'accents', base: 'qwen3', decode: true, patch: {
    normalizer: { type: 'Sequence', normalizers: [{ type: 'NFKD' }, { type: 'StripAccents' }, { type: 'Lowercase' }] },
    pre_tokenizer: byteLevel({ use_regex: true }) } },
  { name: 'tiny_prefix', base: null, decode: false, patch: tinyPrefix(false) },
  { name: 'tiny_ignore', base: null, decode: false, patch: tinyPrefix(true) },
  { name: 'tiny_bytefallback', base: null, decode: false, patch: tinyByteFallback() },
];

function tinyBase(model) {
  return { version: '1.0', truncation: null, padding: null, added_tokens: [], normalizer: null,
    pre_tokenizer: { type: 'Split', pattern: { String: ' ' }, behavior: 'Removed', invert: false },
    post_processor: null, decoder: null, model };
}
function tinyPrefix(ignoreMerges) {
  const toks = ['[UNK]', 'a', 'b', 'c', 'd', '##a', '##b', '##c', '##d', 'a</w>', 'b</w>', 'c</w>', 'd</w>',
    '##a</w>', '##b</w>', '##c</w>', '##d</w>', 'ab', '##bc</w>', 'abc</w>', '##ab', 'cd', 'abcd'];
  const vocab = Object.fromEntries(toks.map((t, i) => [t, i]));
  return tinyBase({ type: 'BPE', dropout: null, unk_token: '[UNK]', continuing_subword_prefix: '##',
    end_of_word_suffix: '</w>', fuse_unk: false, byte_fallback: false, ignore_merges: ignoreMerges, vocab,
    merges: ['a ##b', '##b ##c</w>', 'ab ##c</w>', '##a ##b', 'c ##d'] });
}
function tinyByteFallback() {
  const toks = ['a', 'b', 'c', 'ab', 'abc'];
  for (let i = 0; i < 256; i++) toks.push(`<0x${i.toString(16).toUpperCase().padStart(2, '0')}>`);
  const vocab = Object.fromEntries(toks.map((t, i) => [t, i]));
  return tinyBase({ type: 'BPE', dropout: null, unk_token: null, continuing_subword_prefix: null,
    end_of_word_suffix: null, fuse_unk: false, byte_fallback: true, ignore_merges: false, vocab,
    merges: [['a', 'b'], ['ab', 'c']] });
}

writeFileSync(join(dirname(out), 'variants.json'), JSON.stringify(variants, null, 1) + '\n');

writeFileSync(out, c.map((e) => JSON.stringify(e)).join('\n') + '\n');
console.error(`wrote ${c.length} texts to ${out}`);

// SentencePiece-style tokenizers (Gemma 3, Llama 2, Mistral) turn spaces into "▁", may prepend
// one, fall back to byte tokens for characters outside the vocabulary and have added tokens
// for whitespace runs and markup: texts aimed at those rules. They go to corpus_models.jsonl,
// which the fixture-model goldens (scripts/golden/tokenizer_models.mjs) use beside corpus.jsonl.
const m = [];
const addM = (name, text) => m.push({ name, text });
addM('sp_spaces', 'a b  c   d    e     f      g');
addM('sp_leading_spaces', '   leading three');
addM('sp_leading_one', ' one leading');
addM('sp_trailing_spaces', 'trailing three   ');
addM('sp_only_spaces', '      ');
addM('sp_one_space', ' ');
addM('sp_tabs', '\tone\t\ttwo\t\t\tthree\t');
addM('sp_tab_runs', '\t'.repeat(40) + 'x' + '\t'.repeat(3));
addM('sp_newline_runs', 'a\n\nb\n\n\nc' + '\n'.repeat(45) + 'd');
addM('sp_newlines_spaces', 'line one  \n  line two \n\n \n   line three\r\n\r\n');
addM('sp_spaces_long', 'x' + ' '.repeat(70) + 'y');
addM('sp_nbsp', 'no\u00a0break\u3000ideographic\u2003em \u00a0 mixed');
addM('sp_emoji_zwj', '👨‍👩‍👧‍👦 🏳️‍🌈 🧑🏽‍💻 👩🏿‍🦱 🫠🪿🫎 ❤️‍🔥 🇺🇳 🏴󠁧󠁢󠁳󠁣󠁴󠁿');
addM('sp_cjk', '日本語のテキストと中文文本，以及한국어 텍스트。「引用」『二重』〜ー');
addM('sp_combining', 'e\u0301 o\u0308\u0304 a\u0323\u0302 \u1100\u1161\u11a8 Z\u0351\u0352\u0353 ज़ क़');
addM('sp_byte_fallback', 'rare: 𓀀𓁐 𐍈𐌰 ꙮ \ue000\uf8ff \u{10ffff} \u{e0041} \u2e3b ⸻ 𝕏 ߷ ᚠᛇᚻ');
addM('sp_euro', '€ 5€ €uro £¥₩₿ ₹');
addM('sp_literal_metaspace', '▁ ▁▁x a▁b ▁leading trailing▁ ▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁▁ end');
addM('sp_metaspace_and_space', ' ▁ ▁ ▁');
addM('sp_byte_token_text', '<0x41> <0xE2><0x82><0xAC> <0xZZ> <0x+F> <0x0A>');
addM('sp_gemma_turns', '<start_of_turn>user\nDescribe <start_of_image> please.<end_of_turn>\n<start_of_turn>model\nIt is a cat.<end_of_turn>\n');
addM('sp_gemma_specials', '<bos><bos>x<eos> <pad>y<unk> <mask>[multimodal]<image_soft_token><image_soft_token> <end_of_image>\n\n');
addM('sp_gemma_markup', '<table><tr><td>1</td><td> 2 </td></tr></table><h1>T</h1><strong>b</strong><s>x</s><code>y</code>');
addM('sp_gemma_unused', '<unused0><unused6241> <unused99>text<unused100 <unused>');
addM('sp_llama_inst', '<s>[INST] What is in this image? [/INST] A dog.</s><s>[INST] And now? [/INST]');
addM('sp_llama_user', 'USER: <image>\nWhat is shown here? ASSISTANT: A cat.</s>USER: <image> <image>\nCompare. ASSISTANT:');
addM('sp_around_specials', ' <s> x </s> y<s>z</s>  <pad><unk><image>  <image> <pad>');
addM('sp_special_then_space', '<s> Hello<s>  Two<s>\nNewline<start_of_turn> x<end_of_turn>  y');
addM('sp_digits', '12345 6.78 9,012 0x1F 3e8 ¾ ٣');
addM('sp_punct', '...!!!???---***///\\\\|||~~~``` “quotes” ‘single’ «guillemets» —dash– …');
addM('sp_code', 'def f(x):\n    return x  # two spaces\n\tif x:\n\t\tpass\n');
addM('sp_long_word', 'word '.repeat(300) + 'end');
addM('sp_long_nospace', 'abcdefghij'.repeat(120));
addM('sp_mixed_long', ('Gemma 3 handles 日本語, emoji 👍🏽 and  double  spaces.\n').repeat(25));
addM('sp_crlf_tabs', 'a\r\n\tb\r\r\n\t\t c \t \n');
addM('sp_control', 'a\u0000b\u0001c\u001fd\u007fe\u0085f\u200bg\u200dh\ufeffi');

writeFileSync(join(dirname(out), 'corpus_models.jsonl'), m.map((e) => JSON.stringify(e)).join('\n') + '\n');
console.error(`wrote ${m.length} texts to corpus_models.jsonl`);

// Fixture-model variants: a fixture's tokenizer.json ("base": a folder of testdata/models, or
// "qwen3" for tokenizer/testdata/qwen3) with top-level keys replaced. They cover the Metaspace
// pre-tokenizer forms of other Llama/Mistral exports, added-token flags with a Prepend
// normalizer, and decoder chains beyond the fixtures' own.
const ms = (o) => ({ type: 'Metaspace', replacement: '\u2581', ...o });
const rep = (from, to) => ({ type: 'Replace', pattern: { String: from }, content: to });
const spDecoder = (strip) => ({ type: 'Sequence', decoders: [rep('\u2581', ' '), { type: 'ByteFallback' }, { type: 'Fuse' },
  ...(strip ? [{ type: 'Strip', content: ' ', start: strip[0], stop: strip[1] }] : [])] });
const modelVariants = [
  { name: 'gemma3', base: 'gemma3', patch: {} },
  { name: 'llava-1.5', base: 'llava-1.5', patch: {} },
  { name: 'llava-next', base: 'llava-next', patch: {} },
  { name: 'internvl3', base: 'internvl3', patch: {} },
  { name: 'glm-4.1v', base: 'glm-4.1v', patch: {} },
  { name: 'llama_metaspace_first', base: 'llava-1.5', patch: {
    normalizer: null, pre_tokenizer: ms({ prepend_scheme: 'first', split: false }) } },
  { name: 'llama_metaspace_always_split', base: 'llava-1.5', patch: {
    normalizer: null, pre_tokenizer: ms({ prepend_scheme: 'always', split: true }),
    decoder: ms({ prepend_scheme: 'always', split: true }) } },
  { name: 'llama_metaspace_first_split', base: 'llava-1.5', patch: {
    normalizer: null, pre_tokenizer: ms({ prepend_scheme: 'first', split: true }),
    decoder: ms({ prepend_scheme: 'first', split: true }) } },
  { name: 'mistral_metaspace_never', base: 'llava-next', patch: {
    normalizer: null, pre_tokenizer: ms({ prepend_scheme: 'never', split: false }),
    decoder: ms({ prepend_scheme: 'never', split: false }) } },
  { name: 'mistral_metaspace_legacy', base: 'llava-next', patch: {
    normalizer: null, pre_tokenizer: ms({ add_prefix_space: true, str_rep: '\u2581' }),
    decoder: ms({ add_prefix_space: true, str_rep: '\u2581' }) } },
  { name: 'llama_added_flags', base: 'llava-1.5', patch: {
    added_tokens_append: [
      extra(32002, '<mask>', { lstrip: true, special: true }),
      extra(32003, '[SEP]', { rstrip: true, special: true }),
      extra(32004, 'fox', { single_word: true }),
      extra(32005, 'é', {}),
      extra(32006, 'hello world', { normalized: true }),
      extra(32007, 'AB', { normalized: true, special: true }),
      extra(32008, ' brown', { normalized: true, lstrip: true, rstrip: true }),
    ] } },
  { name: 'gemma3_metaspace_split', base: 'gemma3', patch: {
    normalizer: null, pre_tokenizer: ms({ prepend_scheme: 'never', split: true }),
    decoder: ms({ prepend_scheme: 'never', split: true }) } },
  { name: 'dec_strip_both', base: 'llava-1.5', patch: { decoder: spDecoder([2, 1]) } },
  { name: 'dec_fuse_first', base: 'llava-1.5', patch: { decoder: { type: 'Sequence', decoders: [
    { type: 'ByteFallback' }, { type: 'Fuse' }, rep('\u2581\u2581', '=='), rep('\u2581', ' '),
    { type: 'Strip', content: ' ', start: 1, stop: 0 }] } } },
  { name: 'dec_metaspace_fused', base: 'llava-1.5', patch: { decoder: { type: 'Sequence', decoders: [
    { type: 'ByteFallback' }, { type: 'Fuse' }, ms({ prepend_scheme: 'first', split: false })] } } },
  { name: 'dec_bytefallback_metaspace', base: 'llava-next', patch: { decoder: { type: 'Sequence', decoders: [
    { type: 'ByteFallback' }, ms({ prepend_scheme: 'always', split: true })] } } },
  { name: 'dec_regex_replace', base: 'llava-1.5', patch: { decoder: { type: 'Sequence', decoders: [
    { type: 'Replace', pattern: { Regex: '\u2581+' }, content: ' ' }, { type: 'ByteFallback' }, { type: 'Fuse' }] } } },
  { name: 'dec_bytelevel_sequence', base: 'qwen3', patch: { decoder: { type: 'Sequence', decoders: [
    { type: 'ByteLevel', add_prefix_space: true, trim_offsets: true, use_regex: true }] } } },
  { name: 'dec_bytelevel_mixed', base: 'qwen3', patch: { decoder: { type: 'Sequence', decoders: [
    rep('\u0120\u0120', '\u0120'), { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false }, { type: 'Strip', content: ' ', start: 1, stop: 0 },
    rep('\n', '\\n')] } } },
];
writeFileSync(join(dirname(out), 'model_variants.json'), JSON.stringify(modelVariants, null, 1) + '\n');

// Files that tokenizers may refuse to load: the goldens record whether it does, and the Go
// loader must agree (refusing with ErrBadInput).
const strip = (o) => ({ type: 'Strip', content: ' ', start: 1, stop: 0, ...o });
const loadCases = [
  { name: 'metaspace_no_prefix_default_scheme', patch: { pre_tokenizer: ms({ add_prefix_space: false }) } },
  { name: 'metaspace_no_prefix_never', patch: { pre_tokenizer: ms({ add_prefix_space: false, prepend_scheme: 'never' }) } },
  { name: 'metaspace_no_prefix_first', patch: { pre_tokenizer: ms({ add_prefix_space: false, prepend_scheme: 'first' }) } },
  { name: 'metaspace_prefix_never', patch: { pre_tokenizer: ms({ add_prefix_space: true, prepend_scheme: 'never' }) } },
  { name: 'metaspace_bad_scheme', patch: { pre_tokenizer: ms({ prepend_scheme: 'sometimes' }) } },
  { name: 'metaspace_no_replacement', patch: { pre_tokenizer: { type: 'Metaspace', prepend_scheme: 'always' } } },
  { name: 'metaspace_two_chars', patch: { pre_tokenizer: ms({ replacement: '\u2581\u2581' }) } },
  { name: 'metaspace_decoder_minimal', patch: { decoder: ms({}) } },
  { name: 'strip_no_stop', patch: { decoder: { type: 'Strip', content: ' ', start: 1 } } },
  { name: 'strip_two_chars', patch: { decoder: strip({ content: 'ab' }) } },
  { name: 'strip_negative', patch: { decoder: strip({ start: -1 }) } },
  { name: 'replace_no_content', patch: { decoder: { type: 'Replace', pattern: { String: 'x' } } } },
  { name: 'replace_no_pattern', patch: { decoder: { type: 'Replace', content: 'x' } } },
  { name: 'bytelevel_decoder_bare', patch: { decoder: { type: 'ByteLevel' } } },
  { name: 'bytelevel_decoder_no_trim', patch: { decoder: { type: 'ByteLevel', add_prefix_space: false } } },
  { name: 'bytelevel_decoder_full', patch: { decoder: byteLevel({}) } },
  { name: 'bytelevel_pre_bare', patch: { pre_tokenizer: { type: 'ByteLevel' } } },
  { name: 'sequence_no_decoders', patch: { decoder: { type: 'Sequence' } } },
  { name: 'sequence_empty', patch: { decoder: { type: 'Sequence', decoders: [] } } },
  { name: 'fuse_only', patch: { decoder: { type: 'Fuse' } } },
];
writeFileSync(join(dirname(out), 'model_load_cases.json'), JSON.stringify(loadCases, null, 1) + '\n');
