package video

import (
	"encoding/binary"
	"math"
	"strings"
)

// This file answers: what does ffprobe report for the first video track of
// a Matroska or WebM file, read from its EBML elements in Go? It covers
// files with one Segment whose Info (with a Duration) and Tracks come before
// the first Cluster, and a first video track of codec VP8, VP9, H.264 or
// HEVC without content encodings, projection or a rotate tag; anything else
// gives ok false and the caller asks ffprobe. The arithmetic is FFmpeg 5.1's
// (libavformat/matroskadec.c, checked against Debian's ffprobe by the
// tests):
//
//   - avg_frame_rate: 10⁹ / DefaultDuration (from FrameRate when absent)
//     reduced to a fraction of terms at most 30000;
//   - format duration: Duration × TimestampScale × 1000 / 10⁶ in double
//     precision, truncated to microseconds;
//   - no frame count (nb_frames is N/A for Matroska);
//   - width, height: PixelWidth and PixelHeight, when the codec's own
//     header (the first key frame, or the SPS in CodecPrivate) agrees.

// EBML element IDs the parser reads.
const (
	ebmlHeader       = 0x1A45DFA3
	ebmlDocType      = 0x4282
	ebmlDocTypeRead  = 0x4285
	ebmlMaxIDLength  = 0x42F2
	ebmlMaxSizeLen   = 0x42F3
	mkvSegment       = 0x18538067
	mkvInfo          = 0x1549A966
	mkvTimecodeScale = 0x2AD7B1
	mkvDuration      = 0x4489
	mkvTracks        = 0x1654AE6B
	mkvTrackEntry    = 0xAE
	mkvTrackNumber   = 0xD7
	mkvTrackType     = 0x83
	mkvCodecID       = 0x86
	mkvCodecPrivate  = 0x63A2
	mkvDefaultDur    = 0x23E383
	mkvVideo         = 0xE0
	mkvPixelWidth    = 0xB0
	mkvPixelHeight   = 0xBA
	mkvFrameRate     = 0x2383E3
	mkvProjection    = 0x7670
	mkvEncodings     = 0x6D80
	mkvOperation     = 0xE2
	mkvCluster       = 0x1F43B675
	mkvSimpleBlock   = 0xA3
	mkvBlockGroup    = 0xA0
	mkvBlock         = 0xA1
	mkvTags          = 0x1254C367
	mkvTagName       = 0x45A3
)

// ebmlVint reads a variable-length integer: the length is one more than the
// leading zero bits of the first byte. keepMarker keeps the length bit (IDs
// are compared with it). unknown reports a size whose value bits are all
// ones.
func ebmlVint(b []byte, keepMarker bool) (v uint64, n int, unknown, ok bool) {
	if len(b) == 0 || b[0] == 0 {
		return 0, 0, false, false
	}
	n = 1
	for mask := byte(0x80); b[0]&mask == 0; mask >>= 1 {
		n++
	}
	if len(b) < n {
		return 0, 0, false, false
	}
	v = uint64(b[0])
	if !keepMarker {
		v &= 0xff >> n
	}
	for _, c := range b[1:n] {
		v = v<<8 | uint64(c)
	}
	unknown = !keepMarker && v == 1<<(7*n)-1
	return v, n, unknown, true
}

// ebmlElement is one element: its ID (with the length marker) and payload.
// An element of unknown size runs to the end of its parent.
type ebmlElement struct {
	id      uint32
	body    []byte
	unknown bool
}

// ebmlElements splits b into elements; ok is false on malformed IDs or
// sizes, or sizes past the end of b.
func ebmlElements(b []byte) ([]ebmlElement, bool) {
	var out []ebmlElement
	for len(b) > 0 {
		id, n, _, ok := ebmlVint(b, true)
		if !ok || n > 4 {
			return nil, false
		}
		size, m, unknown, ok := ebmlVint(b[n:], false)
		if !ok {
			return nil, false
		}
		start := n + m
		end := uint64(len(b))
		if !unknown {
			if size > uint64(len(b)-start) {
				return nil, false
			}
			end = uint64(start) + size
		}
		out = append(out, ebmlElement{id: uint32(id), body: b[start:end], unknown: unknown})
		b = b[end:]
		if len(out) > maxElements {
			return nil, false
		}
	}
	return out, true
}

func ebmlUint(b []byte) (uint64, bool) {
	if len(b) > 8 {
		return 0, false
	}
	var v uint64
	for _, c := range b {
		v = v<<8 | uint64(c)
	}
	return v, true
}

func ebmlFloat(b []byte) (float64, bool) {
	switch len(b) {
	case 0:
		return 0, true
	case 4:
		return float64(math.Float32frombits(binary.BigEndian.Uint32(b))), true
	case 8:
		return math.Float64frombits(binary.BigEndian.Uint64(b)), true
	}
	return 0, false
}

// mkvTrack is what the parser keeps of the first video track.
type mkvTrack struct {
	number     uint64
	codec      string
	private    []byte
	defaultDur uint64
	frameRate  float64
	width      uint64
	height     uint64
	odd        bool // an element this parser does not follow
}

// mkvHeader reads the header of a Matroska or WebM file.
func mkvHeader(data []byte) (Info, bool) {
	top, ok := ebmlElements(data)
	if !ok || len(top) < 2 || top[0].id != ebmlHeader || top[1].id != mkvSegment || !mkvHeaderOK(top[0].body) {
		return Info{}, false
	}
	kids, ok := ebmlElements(top[1].body)
	if !ok {
		return Info{}, false
	}
	var (
		scale    uint64 = 1000000
		duration float64
		track    *mkvTrack
		haveInfo bool
		frame    []byte
	)
	for _, el := range kids {
		switch el.id {
		case mkvInfo:
			if haveInfo || track != nil {
				return Info{}, false
			}
			haveInfo = true
			if scale, duration, ok = mkvReadInfo(el.body); !ok {
				return Info{}, false
			}
		case mkvTracks:
			if track != nil {
				return Info{}, false
			}
			if track, ok = mkvReadTracks(el.body); !ok {
				return Info{}, false
			}
		case mkvTags:
			if mkvHasRotateTag(el.body) {
				return Info{}, false
			}
		case mkvCluster:
			if !haveInfo || track == nil || el.unknown {
				return Info{}, false
			}
			if frame == nil {
				frame = mkvFirstFrame(el.body, track.number)
			}
		}
		if el.unknown && el.id != mkvCluster {
			return Info{}, false
		}
	}
	if !haveInfo || track == nil {
		return Info{}, false
	}
	return mkvTrackInfo(track, scale, duration, frame)
}

// mkvHeaderOK checks the EBML header as FFmpeg does, and the doctype.
func mkvHeaderOK(b []byte) bool {
	els, ok := ebmlElements(b)
	if !ok {
		return false
	}
	doc := ""
	for _, el := range els {
		v, _ := ebmlUint(el.body)
		switch el.id {
		case ebmlDocType:
			doc = strings.TrimRight(string(el.body), "\x00")
		case ebmlDocTypeRead:
			if v > 3 {
				return false
			}
		case ebmlMaxIDLength:
			if v > 4 {
				return false
			}
		case ebmlMaxSizeLen:
			if v > 8 {
				return false
			}
		}
	}
	return doc == "webm" || doc == "matroska"
}

func mkvReadInfo(b []byte) (scale uint64, duration float64, ok bool) {
	els, ok := ebmlElements(b)
	if !ok {
		return 0, 0, false
	}
	scale = 1000000
	for _, el := range els {
		switch el.id {
		case mkvTimecodeScale:
			if scale, ok = ebmlUint(el.body); !ok {
				return 0, 0, false
			}
		case mkvDuration:
			if duration, ok = ebmlFloat(el.body); !ok {
				return 0, 0, false
			}
		}
	}
	if scale == 0 {
		scale = 1000000
	}
	return scale, duration, true
}

// mkvReadTracks returns the first track of type video.
func mkvReadTracks(b []byte) (*mkvTrack, bool) {
	els, ok := ebmlElements(b)
	if !ok {
		return nil, false
	}
	for _, el := range els {
		if el.id != mkvTrackEntry {
			continue
		}
		t, video, ok := mkvReadTrack(el.body)
		if !ok {
			return nil, false
		}
		if video {
			return t, !t.odd
		}
	}
	return nil, false
}

func mkvReadTrack(b []byte) (t *mkvTrack, video, ok bool) {
	els, ok := ebmlElements(b)
	if !ok {
		return nil, false, false
	}
	t = &mkvTrack{}
	for _, el := range els {
		v, isUint := ebmlUint(el.body)
		switch el.id {
		case mkvTrackNumber:
			t.number = v
		case mkvTrackType:
			video = isUint && v == 1
		case mkvCodecID:
			t.codec = string(el.body)
		case mkvCodecPrivate:
			t.private = el.body
		case mkvDefaultDur:
			t.defaultDur = v
		case mkvEncodings, mkvOperation:
			t.odd = true
		case mkvVideo:
			t.odd = t.odd || !mkvReadVideo(el.body, t)
		}
		if el.id == mkvTrackNumber || el.id == mkvTrackType || el.id == mkvDefaultDur {
			t.odd = t.odd || !isUint
		}
	}
	return t, video, true
}

func mkvReadVideo(b []byte, t *mkvTrack) bool {
	els, ok := ebmlElements(b)
	if !ok {
		return false
	}
	for _, el := range els {
		switch el.id {
		case mkvPixelWidth:
			t.width, ok = ebmlUint(el.body)
		case mkvPixelHeight:
			t.height, ok = ebmlUint(el.body)
		case mkvFrameRate:
			t.frameRate, ok = ebmlFloat(el.body)
		case mkvProjection:
			ok = false
		}
		if !ok {
			return false
		}
	}
	return true
}

// mkvHasRotateTag reports whether a Tags element names a rotate tag (a
// stream tag ffprobe would report).
func mkvHasRotateTag(b []byte) bool {
	for i := 0; i+2 <= len(b); i++ {
		if b[i] != 0x45 || b[i+1] != 0xA3 {
			continue
		}
		size, n, _, ok := ebmlVint(b[i+2:], false)
		if !ok || size > uint64(len(b)-i-2-n) {
			continue
		}
		name := b[i+2+n : i+2+n+int(size)]
		if strings.Contains(strings.ToLower(string(name)), "rotat") {
			return true
		}
	}
	return false
}

// mkvFirstFrame returns the first frame of the track in a cluster, or nil
// (no block of the track, or a laced one).
func mkvFirstFrame(b []byte, track uint64) []byte {
	els, ok := ebmlElements(b)
	if !ok {
		return nil
	}
	for _, el := range els {
		block := el.body
		if el.id == mkvBlockGroup {
			kids, ok := ebmlElements(el.body)
			if !ok {
				return nil
			}
			block = nil
			for _, k := range kids {
				if k.id == mkvBlock {
					block = k.body
				}
			}
		} else if el.id != mkvSimpleBlock {
			continue
		}
		num, n, _, ok := ebmlVint(block, false)
		if !ok || len(block) < n+3 || num != track {
			continue
		}
		if block[n+2]&0x06 != 0 { // laced
			return nil
		}
		return block[n+3:]
	}
	return nil
}

// mkvTrackInfo computes the Info of the chosen track.
func mkvTrackInfo(t *mkvTrack, scale uint64, duration float64, frame []byte) (Info, bool) {
	var w, h int
	var ok bool
	info := Info{}
	switch t.codec {
	case "V_VP8":
		info.Codec = "vp8"
		w, h, ok = vp8KeyframeSize(frame)
	case "V_VP9":
		info.Codec = "vp9"
		w, h, ok = vp9KeyframeSize(frame)
	case "V_MPEG4/ISO/AVC":
		info.Codec = "h264"
		w, h, ok = avcConfigSize(t.private)
	case "V_MPEGH/ISO/HEVC":
		info.Codec = "hevc"
		w, h, ok = hevcConfigSize(t.private)
	}
	if !ok || uint64(w) != t.width || uint64(h) != t.height || w > maxSide || h > maxSide {
		return Info{}, false
	}
	info.Width, info.Height = w, h
	dd := t.defaultDur
	if dd == 0 && t.frameRate > 0 {
		// FFmpeg derives it in double precision and truncates.
		d := 1000000000 / t.frameRate
		if !(d >= 0 && d < math.MaxUint64) {
			return Info{}, false
		}
		dd = uint64(d)
	}
	if dd == 0 {
		return Info{}, false // the rate would be estimated from the packets
	}
	div := uint64(1)
	if dd > math.MaxInt64 {
		div = 2
	}
	num, den, ok := reduceRational(int64(1000000000/div), int64(dd/div), 30000)
	if !ok || num <= 0 {
		return Info{}, false
	}
	info.FPS = float64(num) / float64(den)
	if math.IsNaN(duration) || !(duration > 0) {
		return Info{}, false
	}
	d := duration * float64(scale)
	d = d * 1000
	d = d / 1000000
	if !(d >= 1) || d >= 1<<62 {
		return Info{}, false
	}
	info.Duration = ffprobeSeconds(int64(d))
	return info, true
}
