// Package video decodes video streams into the rgb24 frames FFmpeg's command
// line produces, for the frames a sampler selects.
//
// Exactness target: the frames equal, byte for byte, those of
//
//	ffmpeg -i INPUT -map 0:v:0 -fps_mode passthrough -f rawvideo -pix_fmt rgb24 -
//
// run with Debian's FFmpeg 5.1 (default swscale flags, the stream's own
// colour matrix and range, display-matrix rotation applied as the command
// line does). Probe reports the decoded frame count (every frame is decoded
// to count it; container metadata is not trusted, and WebM has none) and the
// stream's average frame rate (r_frame_rate when the average is unknown,
// 0 when both are).
//
// Why subprocesses: the package runs Debian's ffprobe and ffmpeg binaries
// rather than linking libavcodec through cgo (go-astiav). The command line is
// the reference, so running it gives its frames by construction; a decoder
// crash or hang on hostile input stays in a child process that is killed when
// the context ends; and the Go build needs no FFmpeg development headers.
// The cost is one process start per pass (a few milliseconds).
//
// Input comes from memory. MP4 needs seeking (its index often sits at the end),
// so the bytes are placed in an anonymous memory file (memfd_create on Linux,
// an unlinked temporary file elsewhere) that the child reads as
// /proc/self/fd/3 (or the temporary path); no predictable path is ever
// created. The container is sniffed from the leading bytes (ISO BMFF
// MP4/MOV, Matroska/WebM, AVI, GIF) and its demuxer is forced with -f, so no
// other FFmpeg demuxer (playlists, concat scripts) can be reached.
//
// Header reads the headers only (size, rotation, average frame rate,
// duration, codec and, for MP4 and AVI, the container's declared frame
// count); Probe adds a pass that decodes every frame to count them. For
// MP4/MOV and Matroska/WebM files Header reads the boxes or EBML elements
// in Go (header*.go) and runs ffprobe only for what that reader does not
// follow exactly (fragmented MP4, cover art, codecs other than H.264, HEVC,
// VP8 and VP9, flipped or scaled display matrices, Matroska without a
// duration or default frame duration, and more); its Info equals the one
// from ffprobe's output field for field, which the tests check against
// Debian's ffprobe on every test clip and on clips synthesized with FFmpeg.
// Options.FFprobeHeaders turns it off.
//
// Decode decodes every frame once (codecs need their references) and feeds
// all of them to two outputs: a null output, whose frame count FFmpeg's
// progress report gives on a pipe (fd 4), and one whose filter (a select
// filter read from a pipe, fd 5) keeps the sampled indices, which alone are
// converted to rgb24 on stdout. Because FFmpeg reads an output's filter
// only after it has opened the input, the child can start before the
// sampling is known: Start runs it while the caller probes and plans, and
// Decoding.Frames hands it the selection (Decode is the two in one).
// One exception to "every frame": an H.264 track in MP4 whose sample table
// and edit list the package follows exactly (h264_skip.go) is written to
// the child's stdin as an elementary stream without the unsampled pictures
// that no other picture references; every other frame decodes the same,
// the select indices move down by the pictures left out before them, and
// the null output's count must equal the container's count less those.
// A decode that does not add up reports ErrRedo, and the Video decodes
// from the container from then on; Options.DecodeAll turns the skipping
// off. swscale converts each frame independently, so the selected frames
// equal the same frames of a full decode; the tests check this for every
// clip. Decode reports
// ErrFrameCount when the count differs from the Info it was given, so that
// a caller may plan from the declared count, decode once, and plan again
// only when the declared count was wrong (internal/videoprep does).
//
// Limits: Options.MaxBytes (default 256 MiB), MaxDuration (default 10 min),
// MaxFrames sampled frames per call (default 768) and MaxFramePixels
// (default 64 Mpx). Over a limit the error wraps ErrTooLarge (HTTP 413);
// undecodable or unknown input wraps ErrCorrupt or ErrUnsupported (HTTP 422);
// missing binaries wrap ErrUnavailable. When the context ends the child is
// killed and reaped before the call returns.
//
// A *Decoder is immutable and safe for concurrent use.
package video
