#!/usr/bin/python3
"""Golden wire encodings of the vLLM, SGLang and TokenSpeed gRPC messages.

The messages are built with the *upstream* protocol definitions: the .proto
files of lightseekorg/smg (crates/grpc_client/proto/{common,
tokenspeed_scheduler,vllm_engine,sglang_scheduler}.proto) are read from a git
checkout, compiled with protoc --python_out into a temporary directory (never
committed) and filled the way SMG's gateway fills them:

  * request builders: crates/grpc_client/src/{vllm_engine,sglang_scheduler}.rs
    (build_grpc_sampling_params_from_chat, build_generate_request_from_chat);
  * multimodal assembly: model_gateway/src/routers/grpc/multimodal/assemble.rs
    (assemble_vllm, assemble_sglang, vllm_field_layout_keys) and
    proto_wrapper.rs (VllmMultimodalData / SglangMultimodalData into_proto,
    the /dev/shm handle naming of write_tokenspeed_shm_with);
  * Qwen field layouts: crates/multimodal/src/registry/{qwen_vl,qwen3_vl}.rs;
  * responses: grpc_servicer/smg_grpc_servicer/{vllm,sglang}/servicer.py
    (_chunk_response / _complete_response, _create_chunk_response /
    _create_completion_response, GetModelInfo, GetServerInfo).

Where the gateway needs more than SMG sends today (vLLM min_tokens and an
int32-keyed logit_bias, SGLang logit_bias and custom_params), the extra fields
are marked below; they are fields the servicers read.

Inputs are real: two small PNGs made here with Pillow, preprocessed by this
project's Pillow/NumPy reference (reference_preprocess.py, Qwen2.5-VL with
min_pixels 784, giving grids 1x2x2 and 1x2x4); the Qwen3-VL video is
media/video/testdata/h264_moov_end.mp4 with its grid and timestamps from
internal/videoprep/testdata/golden.json and its prompt ids from
prompt/testdata/render_golden.json; other token ids come from Hugging Face
tokenizers (scripts/golden/node_modules, Qwen3 tokenizer.json). mm_hashes are
BLAKE3 hex digests of the media bytes, as SMG's hasher computes them.

Outputs, in proto/testdata/:
  smg_descriptors.binpb   FileDescriptorSet of the four upstream files
  *.binpb                 one message, serialized deterministically
  *_stream.binpb          several messages, each preceded by its size as a
                          varint (the size-delimited form of protodelim)
  proto_goldens.json      the upstream commit and, per file, its message
                          type and the values the Go test checks

Run from the repository root with Debian's python3 (protobuf 4.21) and
protoc 3.21:

    /usr/bin/python3 scripts/golden/proto_goldens.py [--smg GIT_DIR] [--rev REV]
"""

import argparse
import hashlib
import importlib
import io
import json
import os
import struct
import subprocess
import sys
import tempfile

import numpy as np
from PIL import Image

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "proto", "testdata")
sys.path.insert(0, HERE)
import reference_preprocess as ref  # noqa: E402

PROTOS = ["common", "tokenspeed_scheduler", "vllm_engine", "sglang_scheduler"]

# Qwen special tokens (ids shared by the Qwen2.5 and Qwen3 vocabularies).
IM_END = 151645
IMAGE_PAD = 151655
VIDEO_PAD = 151656
VISION_START = 151652

# Fixed identities so the files do not change from run to run.
REQUEST_ID = "chatcmpl-0198c7a0-5b1e-7c3d-9a2f-4e6b8d0c1a23"
SMG_PID = 4242
SHM_NAMESPACE = "6d7f2c1e-8b4a-4f0e-9c3d-2a1b0e9f8c7d:25"


# ---------------------------------------------------------------- BLAKE3
# Python 3.11 has no BLAKE3; this follows the BLAKE3 specification (one
# 32-byte output, no key). The Go test checks every digest against
# github.com/zeebo/blake3.

_IV = (0x6A09E667, 0xBB67AE85, 0x3C6EF372, 0xA54FF53A,
       0x510E527F, 0x9B05688C, 0x1F83D9AB, 0x5BE0CD19)
_PERM = (2, 6, 3, 10, 7, 0, 4, 13, 1, 11, 12, 5, 9, 14, 15, 8)
_CHUNK_START, _CHUNK_END, _PARENT, _ROOT = 1, 2, 4, 8
_M32 = 0xFFFFFFFF


def _g(s, a, b, c, d, x, y):
    s[a] = (s[a] + s[b] + x) & _M32
    s[d] = ((s[d] ^ s[a]) >> 16 | (s[d] ^ s[a]) << 16) & _M32
    s[c] = (s[c] + s[d]) & _M32
    s[b] = ((s[b] ^ s[c]) >> 12 | (s[b] ^ s[c]) << 20) & _M32
    s[a] = (s[a] + s[b] + y) & _M32
    s[d] = ((s[d] ^ s[a]) >> 8 | (s[d] ^ s[a]) << 24) & _M32
    s[c] = (s[c] + s[d]) & _M32
    s[b] = ((s[b] ^ s[c]) >> 7 | (s[b] ^ s[c]) << 25) & _M32


def _compress(cv, block, counter, block_len, flags):
    m = list(struct.unpack("<16I", block.ljust(64, b"\0")))
    s = list(cv) + list(_IV[:4]) + [counter & _M32, counter >> 32, block_len, flags]
    for r in range(7):
        _g(s, 0, 4, 8, 12, m[0], m[1])
        _g(s, 1, 5, 9, 13, m[2], m[3])
        _g(s, 2, 6, 10, 14, m[4], m[5])
        _g(s, 3, 7, 11, 15, m[6], m[7])
        _g(s, 0, 5, 10, 15, m[8], m[9])
        _g(s, 1, 6, 11, 12, m[10], m[11])
        _g(s, 2, 7, 8, 13, m[12], m[13])
        _g(s, 3, 4, 9, 14, m[14], m[15])
        if r < 6:
            m = [m[i] for i in _PERM]
    return [s[i] ^ s[i + 8] for i in range(8)]


def _chunk_cv(chunk, index, root):
    """Chaining value of one chunk (up to 1024 bytes)."""
    blocks = [chunk[i:i + 64] for i in range(0, len(chunk), 64)] or [b""]
    cv = _IV
    for k, blk in enumerate(blocks):
        flags = (_CHUNK_START if k == 0 else 0)
        if k == len(blocks) - 1:
            flags |= _CHUNK_END | (_ROOT if root else 0)
        cv = _compress(cv, blk, index, len(blk), flags)
    return cv


def _tree_cv(data, first_chunk, root):
    n = max(1, -(-len(data) // 1024))
    if n == 1:
        return _chunk_cv(data, first_chunk, root)
    left = 1 << ((n - 1).bit_length() - 1)  # largest power of two below n
    lcv = _tree_cv(data[:left * 1024], first_chunk, False)
    rcv = _tree_cv(data[left * 1024:], first_chunk + left, False)
    block = struct.pack("<16I", *(lcv + rcv))
    return _compress(_IV, block, 0, 64, _PARENT | (_ROOT if root else 0))


def blake3_hex(data):
    return struct.pack("<8I", *_tree_cv(bytes(data), 0, True)).hex()


def check_blake3():
    # The specification's digest of the empty input.
    want = "af1349b9f5f9a1a6a0404dea36dcc9499bcb25c9adc112b7cc9a93cae41f3262"
    if blake3_hex(b"") != want:
        raise SystemExit("blake3 self-check failed")


# ---------------------------------------------------------------- upstream

def git(smg, *args):
    return subprocess.run(["git", "-C", smg] + list(args), check=True,
                          capture_output=True).stdout


def compile_upstream(smg, rev, tmp):
    """Writes the upstream .proto files to tmp, compiles them and returns the
    resolved commit and the FileDescriptorSet bytes."""
    from google.protobuf import descriptor_pb2, struct_pb2, timestamp_pb2
    commit = git(smg, "rev-parse", rev + "^{commit}").decode().strip()
    for name in PROTOS:
        src = git(smg, "show", "%s:crates/grpc_client/proto/%s.proto" % (commit, name))
        with open(os.path.join(tmp, name + ".proto"), "wb") as f:
            f.write(src)
    # The well-known types from the protobuf runtime, so no system copy of
    # their .proto sources is needed.
    wkt = descriptor_pb2.FileDescriptorSet()
    for mod in (struct_pb2, timestamp_pb2):
        mod.DESCRIPTOR.CopyToProto(wkt.file.add())
    with open(os.path.join(tmp, "wkt.binpb"), "wb") as f:
        f.write(wkt.SerializeToString())
    desc = os.path.join(tmp, "smg_descriptors.binpb")
    subprocess.run(["protoc", "-I", tmp, "--descriptor_set_in=" + os.path.join(tmp, "wkt.binpb"),
                    "--python_out=" + tmp, "--descriptor_set_out=" + desc]
                   + [n + ".proto" for n in PROTOS], check=True)
    with open(desc, "rb") as f:
        return commit, f.read()


# ---------------------------------------------------------------- inputs

def tokenize(texts):
    """Token ids of each text with the Qwen3 tokenizer.json through Hugging
    Face tokenizers (Node binding)."""
    src = r"""
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { createRequire } from 'node:module';
const [golden, tokgz] = process.argv.slice(1);
const { Tokenizer } = createRequire(golden + '/package.json')('tokenizers');
const tok = Tokenizer.fromString(gunzipSync(readFileSync(tokgz)).toString('utf8'));
const out = [];
for (const t of JSON.parse(readFileSync(0, 'utf8'))) out.push(Array.from((await tok.encode(t)).getIds()));
process.stdout.write(JSON.stringify(out));
"""
    tokgz = os.path.join(ROOT, "tokenizer", "testdata", "qwen3", "tokenizer.json.gz")
    r = subprocess.run(["node", "--input-type=module", "-e", src, HERE, tokgz],
                       input=json.dumps(texts).encode(), check=True, capture_output=True)
    return json.loads(r.stdout)


def make_png(width, height, seed):
    """A small RGB gradient, PNG-encoded by Pillow."""
    y, x = np.mgrid[0:height, 0:width]
    rgb = np.stack([(x * 9 + seed * 40) % 256, (y * 7 + seed * 90) % 256,
                    (x * y + seed * 25) % 256], axis=-1).astype(np.uint8)
    buf = io.BytesIO()
    Image.fromarray(rgb, "RGB").save(buf, format="PNG")
    return buf.getvalue()


def images():
    """The two images: bytes, reference pixel_values and grids."""
    cfg = ref.load_config("qwen2.5-vl")
    out = []
    for w, h, seed in ((28, 28, 1), (56, 28, 2)):
        data = make_png(w, h, seed)
        r = ref.preprocess_image(ref.load_image(io.BytesIO(data)), cfg, min_pixels=784)
        out.append((data, r.pixel_values, list(r.grid_thw)))
    return out


def pad_runs(ids, pad):
    """(offset, length) of each maximal run of pad in ids."""
    runs, i = [], 0
    while i < len(ids):
        if ids[i] == pad:
            j = i
            while j < len(ids) and ids[j] == pad:
                j += 1
            runs.append((i, j - i))
            i = j
        else:
            i += 1
    return runs


def image_prompt():
    """The rendered Qwen chat prompt with two images and its expanded ids
    (one pad per merged 2x2 patch group: 1 and 2 pads)."""
    text = ("<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n"
            "<|vision_start|><|image_pad|><|vision_end|><|vision_start|><|image_pad|><|vision_end|>"
            "Which colour dominates each picture? Answer in JSON.<|im_end|>\n<|im_start|>assistant\n")
    expanded = text.replace("<|image_pad|>", "\0", 1).replace("<|image_pad|>", "<|image_pad|>" * 2)
    expanded = expanded.replace("\0", "<|image_pad|>")
    return text, expanded


# ---------------------------------------------------------------- helpers

def f32_bytes(a):
    return np.ascontiguousarray(a, dtype="<f4").tobytes()


def i64_bytes(values):
    return np.asarray(values, dtype="<i8").tobytes()


def shm_handle(common, nbytes, seq):
    # write_tokenspeed_shm_with: "smg-tokenspeed-<pid>-<unix nanos>-<seq>",
    # offset 0, owner "smg:<pid>" (used for vLLM too).
    return common.ShmHandle(name="smg-tokenspeed-%d-%d-%d" % (SMG_PID, 1767225600000000000 + seq, seq),
                            offset=0, nbytes=nbytes, owner_id="smg:%d" % SMG_PID)


def delimited(msgs):
    out = bytearray()
    for m in msgs:
        b = m.SerializeToString(deterministic=True)
        n = len(b)
        while True:
            byte = n & 0x7F
            n >>= 7
            out.append(byte | (0x80 if n else 0))
            if not n:
                break
        out += b
    return bytes(out)


def logprob_entry(pb, tok, step, top):
    """Log probabilities of one generated token: the token first, then
    top-1 alternatives (binary-exact float32 values)."""
    lp = -0.125 * (step + 1)
    top_ids = [tok] + [100 + step * 7 + k for k in range(top - 1)]
    return lp, pb.TopLogProbs(values=[lp - 0.5 * k for k in range(top)], token_ids=top_ids)


def output_logprobs(pb, toks, first_step, top):
    out = pb.OutputLogProbs()
    for k, tok in enumerate(toks):
        lp, top_lp = logprob_entry(pb, tok, first_step + k, top)
        out.token_logprobs.append(lp)
        out.token_ids.append(tok)
        out.top_logprobs.append(top_lp)
    return out


def sequences(texts, stops, limit, patterns):
    """Per sequence: its token ids split into engine steps. texts are
    tokenized; stops[i] is an id appended after the text (or None); at most
    limit ids are kept; step sizes cycle through patterns[i]."""
    seqs = []
    for toks, stop, pattern in zip(tokenize(texts), stops, patterns):
        if stop is not None:
            toks = toks + [stop]
        toks = toks[:limit]
        parts, at, k = [], 0, 0
        while at < len(toks):
            n = pattern[k % len(pattern)]
            parts.append(toks[at:at + n])
            at, k = at + n, k + 1
        seqs.append(parts)
    return seqs


def interleave(seqs):
    """(index, step number, tokens) in engine order: each step visits the
    sequences that still run."""
    order = []
    for step in range(max(len(s) for s in seqs)):
        for i, parts in enumerate(seqs):
            if step < len(parts):
                order.append((i, step, parts[step]))
    return order


def image_batch(imgs):
    """The two-image prompt and tensors that the vLLM and SGLang requests
    share, and the facts the Go test checks about them."""
    text, expanded = image_prompt()
    ids = tokenize([expanded])[0]
    pixels = np.concatenate([p for _, p, _ in imgs])
    facts = {"original_text": text, "input_ids": ids, "placeholders": pad_runs(ids, IMAGE_PAD),
             "pixel_shape": list(pixels.shape), "pixel_sha256": ref.sha256_f32(pixels),
             "grids": [g for _, _, g in imgs], "patches": [p.shape[0] for _, p, _ in imgs]}
    return pixels, facts


# ---------------------------------------------------------------- vLLM

def vllm_sampling(pb):
    # build_grpc_sampling_params_from_chat for a chat request with
    # temperature 0.7, top_p 0.9, top_k 20, min_p 0.05, frequency_penalty
    # 0.25, presence_penalty 0.5, repetition_penalty 1.05,
    # max_completion_tokens 6, stop ["\"}"], n 2, logprobs with
    # top_logprobs 3, seed 1234 and a json_schema response_format.
    sp = pb.SamplingParams(
        temperature=0.7, top_p=0.9, top_k=20, min_p=0.05,
        frequency_penalty=0.25, presence_penalty=0.5, repetition_penalty=1.05,
        max_tokens=6, stop=['"}'], skip_special_tokens=True,
        spaces_between_special_tokens=True, ignore_eos=False, n=2,
        logprobs=3, seed=1234,
        json_schema='{"type":"object","properties":{"color":{"type":"string"}},"required":["color"]}')
    # Beyond SMG's chat builder, read by the servicer: min_tokens and an
    # int32-keyed logit_bias.
    sp.min_tokens = 2
    sp.logit_bias[271] = -100.0
    sp.logit_bias[151643] = -100.0
    return sp


def vllm_images(pb, common, imgs):
    pixels, facts = image_batch(imgs)
    runs, patches = facts["placeholders"], facts["patches"]
    mm = pb.MultimodalInputs(
        pixel_values=pb.TensorData(shape=list(pixels.shape), dtype="float32", inline=f32_bytes(pixels)),
        im_token_id=IMAGE_PAD,
        mm_placeholders=[pb.PlaceholderRange(offset=o, length=n) for o, n in runs],
        mm_hashes=[blake3_hex(d) for d, _, _ in imgs],
        # qwen_vl.rs field_layouts through vllm_field_layout_keys (SMG lists
        # them in HashMap order; sorted here).
        batched_keys=["image_grid_thw", "patches_per_image"],
        keep_on_cpu_keys=["image_grid_thw"],
        modality=common.IMAGE)
    mm.flat_keys["pixel_values"] = "patches_per_image"
    mm.model_specific_tensors["image_grid_thw"].CopyFrom(pb.TensorData(
        shape=[len(imgs), 3], dtype="int64", inline=i64_bytes([g for _, _, g in imgs])))
    mm.model_specific_tensors["patches_per_image"].CopyFrom(pb.TensorData(
        shape=[len(imgs)], dtype="int64", inline=i64_bytes(patches)))
    req = pb.GenerateRequest(
        request_id=REQUEST_ID,
        tokenized=pb.TokenizedInput(original_text=facts["original_text"], input_ids=facts["input_ids"]),
        sampling_params=vllm_sampling(pb), stream=True, mm_inputs=mm)
    facts["mm_hashes"] = list(mm.mm_hashes)
    return req, facts


def vllm_video(pb, common):
    with open(os.path.join(ROOT, "prompt", "testdata", "render_golden.json"), encoding="utf-8") as f:
        case = [r for r in json.load(f)["results"] if r["name"] == "qwen3-vl/video"][0]
    with open(os.path.join(ROOT, "internal", "videoprep", "testdata", "golden.json"), encoding="utf-8") as f:
        rec = [r for r in json.load(f)["files"] if r["file"] == "h264_moov_end.mp4"][0]
    plan = [c for c in rec["cases"] if c["model"] == "qwen3-vl" and c["override"] == "default"][0]
    with open(os.path.join(ROOT, "media", "video", "testdata", "h264_moov_end.mp4"), "rb") as f:
        clip = f.read()
    ids = case["input_ids"]
    runs = pad_runs(ids, VIDEO_PAD)
    # qwen3_vl.rs: the structural range starts at the video's first
    # <|vision_start|> and ends with its last pad.
    start = max(i for i in range(runs[0][0]) if ids[i] == VISION_START)
    end = runs[-1][0] + runs[-1][1]
    rows, cols = plan["shape"]
    t, h, w = plan["grid_thw"]
    mm = pb.MultimodalInputs(
        pixel_values=pb.TensorData(shape=[rows, cols], dtype="float32",
                                   shm=shm_handle(common, rows * cols * 4, 7)),
        im_token_id=VIDEO_PAD,
        mm_placeholders=[pb.PlaceholderRange(offset=start, length=end - start)],
        mm_hashes=[blake3_hex(clip)],
        batched_keys=sorted(["image_grid_thw", "patches_per_image", "video_grid_thw",
                             "patches_per_video", "video_second_per_grid"]),
        keep_on_cpu_keys=["image_grid_thw", "video_grid_thw"],
        modality=common.VIDEO)
    mm.flat_keys["pixel_values"] = "patches_per_image"
    side = mm.model_specific_tensors
    side["video_grid_thw"].CopyFrom(pb.TensorData(shape=[1, 3], dtype="int64", inline=i64_bytes([t, h, w])))
    side["patches_per_video"].CopyFrom(pb.TensorData(shape=[1], dtype="int64", inline=i64_bytes([rows])))
    side["patches_per_image"].CopyFrom(pb.TensorData(shape=[1], dtype="int64", inline=i64_bytes([rows])))
    # qwen_vl_base.rs finish_video: temporal_patch_size / sample fps (2 / 2).
    side["video_second_per_grid"].CopyFrom(pb.TensorData(shape=[1], dtype="float32",
                                                         inline=f32_bytes([1.0])))
    # A chat request with only max_completion_tokens 64: every other value is
    # the builder's fallback (temperature unset, top_k 0, n 1).
    sp = pb.SamplingParams(top_p=1.0, repetition_penalty=1.0, max_tokens=64,
                           skip_special_tokens=True, spaces_between_special_tokens=True, n=1)
    req = pb.GenerateRequest(
        request_id=REQUEST_ID.replace("0198c7a0", "0198c7a1"),
        tokenized=pb.TokenizedInput(original_text=case["prompt"], input_ids=ids),
        sampling_params=sp, stream=False, mm_inputs=mm)
    facts = {"original_text": case["prompt"], "input_ids": ids, "placeholder": [start, end - start],
             "pad_runs": runs, "grid": plan["grid_thw"], "pixel_shape": plan["shape"],
             "shm": {"name": mm.pixel_values.shm.name, "nbytes": rows * cols * 4,
                     "owner_id": mm.pixel_values.shm.owner_id},
             "mm_hash": blake3_hex(clip), "clip": "media/video/testdata/h264_moov_end.mp4"}
    return req, facts


def vllm_stream(pb, prompt_tokens):
    # n=2, streaming, logprobs 3: sequence 0 ends on the stop string "\"}"
    # (its token completes it), sequence 1 reaches max_tokens 6.
    seqs = sequences(['{"color": "red"}', '{"color": "light blue"}'],
                     [None, None], 6, [(1, 2), (1, 1, 2)])
    ends = {0: dict(finish_reason="stop", matched_stop_str='"}'), 1: dict(finish_reason="length")}
    cached, msgs, done = 16, [], {0: 0, 1: 0}
    for i, step, toks in interleave(seqs):
        first = done[i]
        done[i] += len(toks)
        lps = output_logprobs(pb, toks, first, 3)
        msgs.append(pb.GenerateResponse(chunk=pb.GenerateStreamChunk(
            token_ids=toks, prompt_tokens=prompt_tokens, completion_tokens=len(toks),
            cached_tokens=cached, output_logprobs=lps, index=i)))
        if step == len(seqs[i]) - 1:
            msgs.append(pb.GenerateResponse(complete=pb.GenerateComplete(
                output_ids=toks, prompt_tokens=prompt_tokens, completion_tokens=len(toks),
                cached_tokens=cached, output_logprobs=lps, index=i, **ends[i])))
    facts = {"prompt_tokens": prompt_tokens, "cached_tokens": cached,
             "sequences": [{"index": i, "ids": sum(s, []), "steps": [len(p) for p in s]} for i, s in enumerate(seqs)],
             "finish": {str(k): v for k, v in ends.items()}}
    return msgs, facts


def vllm_model_info(pb):
    # GetModelInfo as the servicer fills it (example values for
    # Qwen2.5-VL-7B-Instruct served as "qwen2.5-vl").
    return pb.GetModelInfoResponse(
        model_path="Qwen/Qwen2.5-VL-7B-Instruct", is_generation=True, max_context_length=128000,
        vocab_size=152064, supports_vision=True, served_model_name="qwen2.5-vl",
        tokenizer_path="Qwen/Qwen2.5-VL-7B-Instruct", model_type="qwen2_5_vl",
        architectures=["Qwen2_5_VLForConditionalGeneration"], eos_token_ids=[IM_END],
        pad_token_id=0, bos_token_id=151643, max_req_input_len=128000,
        default_sampling_params_json='{"temperature":0.1,"top_p":0.001,"top_k":1,"repetition_penalty":1.05}')


def vllm_server_info(pb):
    # The servicer sets only these fields (no server_type, no counters).
    return pb.GetServerInfoResponse(kv_connector="", kv_role="", kv_engine_id="",
                                    data_parallel_size=1, shm_namespace_id=SHM_NAMESPACE)


# ---------------------------------------------------------------- SGLang

def sglang_sampling(pb):
    # build_grpc_sampling_params_from_chat for a chat request with
    # temperature 0.7, top_p 0.9, top_k 20, repetition_penalty 1.05,
    # max_completion_tokens 16, stop ["\n\n"], n 2 and a regex; then
    # resolve_string_stops: SGLang workers get no stop strings, a stop that
    # is one token ("\n\n" is 271) becomes a stop token id and the gateway
    # trims the rest itself.
    stop_ids = tokenize(["\n\n"])[0]
    if len(stop_ids) != 1:
        raise SystemExit("\\n\\n is not one token")
    sp = pb.SamplingParams(
        temperature=0.7, top_p=0.9, top_k=20, min_p=0.0, frequency_penalty=0.0,
        presence_penalty=0.0, repetition_penalty=1.05, max_new_tokens=16,
        stop_token_ids=stop_ids, skip_special_tokens=True, spaces_between_special_tokens=True,
        ignore_eos=False, no_stop_trim=False, n=2, regex="(Red|Green|Blue)[a-z ,.]*")
    # Beyond SMG's chat builder: a string-keyed logit_bias and the request's
    # seed in custom_params (the servicer hands custom_params to custom logit
    # processors; it does not seed SGLang's sampler).
    sp.logit_bias["151643"] = -100.0
    sp.custom_params.update({"seed": 1234})
    return sp


def sglang_images(pb, imgs):
    pixels, facts = image_batch(imgs)
    runs, patches = facts["placeholders"], facts["patches"]
    # SglangMultimodalData::into_proto: raw bytes of every image,
    # modalities ["image"], float32 pixels inline, every model-specific
    # tensor, the pad runs as placeholders.
    mm = pb.MultimodalInputs(
        pixel_values=pb.TensorData(data=f32_bytes(pixels), shape=list(pixels.shape), dtype="float32"),
        image_data=[d for d, _, _ in imgs], modalities=["image"], im_token_id=IMAGE_PAD,
        mm_placeholders=[pb.PlaceholderRange(offset=o, length=n) for o, n in runs])
    mm.model_specific_tensors["image_grid_thw"].CopyFrom(pb.TensorData(
        data=i64_bytes([g for _, _, g in imgs]), shape=[len(imgs), 3], dtype="int64"))
    mm.model_specific_tensors["patches_per_image"].CopyFrom(pb.TensorData(
        data=i64_bytes(patches), shape=[len(imgs)], dtype="int64"))
    # build_generate_request_from_chat_parts with logprobs and top_logprobs 2.
    req = pb.GenerateRequest(
        request_id=REQUEST_ID,
        tokenized=pb.TokenizedInput(original_text=facts["original_text"], input_ids=facts["input_ids"]),
        mm_inputs=mm, sampling_params=sglang_sampling(pb), return_logprob=True,
        logprob_start_len=-1, top_logprobs_num=2, return_hidden_states=False, stream=True,
        require_reasoning=False)
    facts["image_sha256"] = [hashlib.sha256(d).hexdigest() for d, _, _ in imgs]
    facts["stop_token_ids"] = list(req.sampling_params.stop_token_ids)
    return req, facts


def sglang_stream(pb, prompt_tokens):
    # n=2, streaming, top_logprobs 2: sequence 0 ends on EOS, sequence 1 on
    # the stop token "\n\n"; SGLang reports both as the matched token.
    nl2 = tokenize(["\n\n"])[0][0]
    seqs = sequences(["Red, then blue.", "Mostly green"], [IM_END, nl2], 16, [(2, 1), (1, 2)])
    ends = {0: IM_END, 1: nl2}
    cached, msgs, done = 32, [], {0: 0, 1: 0}
    for i, step, toks in interleave(seqs):
        first = done[i]
        done[i] += len(toks)
        lps = output_logprobs(pb, toks, first, 2)
        common = dict(prompt_tokens=prompt_tokens, completion_tokens=done[i], cached_tokens=cached,
                      reasoning_tokens=0, output_logprobs=lps, index=i)
        msgs.append(pb.GenerateResponse(request_id=REQUEST_ID, chunk=pb.GenerateStreamChunk(
            token_ids=toks, **common)))
        if step == len(seqs[i]) - 1:
            msgs.append(pb.GenerateResponse(request_id=REQUEST_ID, complete=pb.GenerateComplete(
                output_ids=toks, finish_reason="stop", matched_token_id=ends[i], **common)))
    facts = {"prompt_tokens": prompt_tokens, "cached_tokens": cached,
             "sequences": [{"index": i, "ids": sum(s, []), "steps": [len(p) for p in s]} for i, s in enumerate(seqs)],
             "matched_token_ids": [ends[0], ends[1]]}
    return msgs, facts


def sglang_model_info(pb):
    return pb.GetModelInfoResponse(
        model_path="Qwen/Qwen2.5-VL-7B-Instruct", tokenizer_path="Qwen/Qwen2.5-VL-7B-Instruct",
        is_generation=True, preferred_sampling_params="", weight_version="default",
        served_model_name="qwen2.5-vl", max_context_length=128000, vocab_size=152064,
        supports_vision=True, model_type="qwen2_5_vl", eos_token_ids=[IM_END, 151643],
        pad_token_id=151643, bos_token_id=151643, max_req_input_len=127995,
        architectures=["Qwen2_5_VLForConditionalGeneration"], id2label_json="", num_labels=0,
        default_sampling_params_json='{"temperature":0.1,"top_p":0.001,"top_k":1,"repetition_penalty":1.05}')


def sglang_server_info(pb):
    from google.protobuf import timestamp_pb2
    info = pb.GetServerInfoResponse(active_requests=1, is_paused=False,
                                    last_receive_timestamp=1767225612.5, uptime_seconds=24.25,
                                    sglang_version="0.5.6", server_type="grpc",
                                    start_time=timestamp_pb2.Timestamp(seconds=1767225588),
                                    max_total_num_tokens=412000)
    info.server_args.update({"model_path": "Qwen/Qwen2.5-VL-7B-Instruct", "tp_size": 1,
                             "skip_tokenizer_init": True, "context_length": None,
                             "served_model_name": "qwen2.5-vl"})
    info.scheduler_info.update({"max_total_num_tokens": 412000, "max_req_input_len": 127995,
                                "status": "ready"})
    return info


# ---------------------------------------------------------------- TokenSpeed

def tokenspeed_request(pb, common, img):
    data, pixels, grid = img
    text = "<|im_start|>user\n<|vision_start|><|image_pad|><|vision_end|>Describe it.<|im_end|>\n<|im_start|>assistant\n"
    ids = tokenize([text.replace("<|image_pad|>", "<|image_pad|>" * 2)])[0]
    runs = pad_runs(ids, IMAGE_PAD)
    rows, cols = pixels.shape
    # content_hash: BLAKE3 of the hex BLAKE3 of the media bytes (proto/testdata/wire.md).
    content_hash = bytes.fromhex(blake3_hex(blake3_hex(data).encode()))
    item = pb.MultimodalItem(
        modality=common.IMAGE, content_hash=content_hash,
        encoder_input=pb.TensorData(shape=[rows, cols], dtype="bfloat16",
                                    shm=shm_handle(common, rows * cols * 2, 3)),
        placeholders=[pb.PlaceholderRange(offset=o, length=n) for o, n in runs],
        placeholder_token_id=IMAGE_PAD)
    item.model_specific_tensors["image_grid_thw"].CopyFrom(pb.TensorData(
        shape=[1, 3], dtype="int64", inline=i64_bytes(grid)))
    sp = pb.SamplingParams(temperature=0.7, top_p=0.9, top_k=20, repetition_penalty=1.05,
                           max_new_tokens=32, stop=["\n\n"], skip_special_tokens=True,
                           spaces_between_special_tokens=True, n=1)
    sp.logit_bias["151643"] = -100.0
    sp.custom_params.update({"seed": 1234})
    req = pb.GenerateRequest(request_id=REQUEST_ID, tokenized=pb.TokenizedInput(input_ids=ids, original_text=text),
                             sampling_params=sp, stream=True,
                             mm_inputs=pb.MultimodalInputs(items=[item]))
    facts = {"input_ids": ids, "placeholders": runs, "grid": grid,
             "content_hash": content_hash.hex(), "image_sha256": hashlib.sha256(data).hexdigest()}
    return req, facts


# ---------------------------------------------------------------- main

def write(manifest, name, msgs, facts):
    delim = isinstance(msgs, list)
    data = delimited(msgs) if delim else msgs.SerializeToString(deterministic=True)
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(data)
    first = msgs[0] if delim else msgs
    manifest["goldens"][name] = {"type": first.DESCRIPTOR.full_name, "delimited": delim,
                                 "count": len(msgs) if delim else 1,
                                 "sha256": hashlib.sha256(data).hexdigest(), "facts": facts}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--smg", default="/work/.mirror/lightseekorg+smg/repo",
                    help="git directory of lightseekorg/smg")
    ap.add_argument("--rev", default="HEAD", help="revision of the .proto files")
    args = ap.parse_args(argv)
    check_blake3()
    import google.protobuf
    with tempfile.TemporaryDirectory() as tmp:
        commit, desc = compile_upstream(args.smg, args.rev, tmp)
        sys.path.insert(0, tmp)
        common = importlib.import_module("common_pb2")
        vllm = importlib.import_module("vllm_engine_pb2")
        sglang = importlib.import_module("sglang_scheduler_pb2")
        tokenspeed = importlib.import_module("tokenspeed_scheduler_pb2")
    protoc = subprocess.run(["protoc", "--version"], check=True, capture_output=True).stdout.decode().strip()
    manifest = {"generator": "scripts/golden/proto_goldens.py",
                "upstream": {"repository": "lightseekorg/smg", "commit": commit,
                             "files": ["crates/grpc_client/proto/%s.proto" % n for n in PROTOS]},
                "protobuf_python": google.protobuf.__version__, "protoc": protoc, "goldens": {}}
    with open(os.path.join(OUT, "smg_descriptors.binpb"), "wb") as f:
        f.write(desc)
    imgs = images()
    req, facts = vllm_images(vllm, common, imgs)
    write(manifest, "vllm_generate_images.binpb", req, facts)
    write(manifest, "vllm_generate_stream.binpb", *vllm_stream(vllm, len(req.tokenized.input_ids)))
    write(manifest, "vllm_generate_video.binpb", *vllm_video(vllm, common))
    write(manifest, "vllm_model_info.binpb", vllm_model_info(vllm), {})
    write(manifest, "vllm_server_info.binpb", vllm_server_info(vllm), {"shm_namespace_id": SHM_NAMESPACE})
    req, facts = sglang_images(sglang, imgs)
    write(manifest, "sglang_generate_images.binpb", req, facts)
    write(manifest, "sglang_generate_stream.binpb", *sglang_stream(sglang, len(req.tokenized.input_ids)))
    write(manifest, "sglang_model_info.binpb", sglang_model_info(sglang), {})
    write(manifest, "sglang_server_info.binpb", sglang_server_info(sglang), {})
    write(manifest, "tokenspeed_generate_image.binpb", *tokenspeed_request(tokenspeed, common, imgs[1]))
    with open(os.path.join(OUT, "proto_goldens.json"), "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=1, sort_keys=True)
        f.write("\n")


if __name__ == "__main__":
    main()
