// Package videoprep turns encoded video bytes into a model's
// pixel_values_videos: open and probe (package media/video: container,
// codec, size, decoded frame count, average frame rate, limits) → plan
// (frame sampling, per-frame size, grid, tokens and the prompt's timing
// metadata; vision.VideoProcessor) → allocate the destination through a
// caller-given Allocator → decode only the sampled frames to rgb24 and hand
// each to the processor as it arrives, which resizes it (Pillow-exact),
// normalizes it and writes its temporal group's rows straight into the
// destination.
//
// Exactness: given FFmpeg's rgb24 frames (the parity boundary), the bytes
// written equal, bit for bit, those of scripts/golden/video_reference.py,
// which decodes with the same FFmpeg command, samples as Qwen3VLVideoProcessor
// (Qwen3-VL) or qwen-vl-utils 0.0.10 (Qwen2-VL, Qwen2.5-VL) do, and resizes
// each frame with Pillow and normalizes and patchifies it with NumPy.
// testdata/golden.json pins the hashes.
//
// Timeline: the FFmpeg decoding child starts as soon as the bytes are open
// and loads its libraries and reads the stream headers while ffprobe reads
// them for the plan (video.Decoding); once the plan is made, the child gets
// its frame selection and the destination is backed with memory ahead of
// the frames (the kernel clears fresh pages, about as much CPU time as the
// patchify). FFmpeg's decode of every frame is the critical path; the frame
// work can run through Options.Run on low-priority threads so that it takes
// only CPU time the decode leaves.
//
// Passes: a container that declares its frame count (MP4, MOV, AVI) is
// planned from that count and decoded once; the decode also counts every
// frame, and a differing count sends the call back to plan from the decoded
// count (Request.Release gets the first buffer back). Other containers
// (WebM) are counted with a decoding pass first. Options.CountFirst forces
// the latter; the results are the same.
//
// Memory: raw frames are held only while in flight (at most Options.Workers
// plus one); resized frames only until their temporal group is written.
//
// A Preprocessor is safe for concurrent use; Options.Concurrency bounds how
// many videos are processed at the same time.
package videoprep
