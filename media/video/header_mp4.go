package video

import (
	"encoding/binary"
	"math"
)

// This file answers: what does ffprobe report for the first video stream of
// an ISO BMFF (MP4, MOV) file, read from the file's boxes in Go? It covers
// the common layout (one moov, no fragments, the video track's codec H.264
// or HEVC with its parameter sets in the sample entry) and gives up (ok
// false) on anything else, so that the caller asks ffprobe. The arithmetic
// is FFmpeg 5.1's (libavformat/mov.c, checked against Debian's ffprobe by
// the tests):
//
//   - nb_frames: the sum of the stts sample counts;
//   - avg_frame_rate: mdhd timescale × frames / stts duration, reduced;
//   - format duration: mvhd duration rescaled to microseconds, rounded;
//   - rotation: the display matrix of tkhd times that of mvhd;
//   - width, height: the sample entry's, when the decoder's (the SPS in
//     avcC or hvcC) agree with them.

// mp4Box is one box: its four-character type and its payload.
type mp4Box struct {
	typ  string
	body []byte
}

// mp4Boxes splits b into boxes; ok is false when the sizes do not tile b
// (up to 7 trailing bytes, which FFmpeg also skips, are allowed). top says
// b is the whole file, where a size of 0 means "to the end".
func mp4Boxes(b []byte, top bool) ([]mp4Box, bool) {
	var out []mp4Box
	for len(b) >= 8 {
		size := uint64(binary.BigEndian.Uint32(b))
		typ := string(b[4:8])
		hdr := uint64(8)
		switch size {
		case 0:
			if !top {
				return nil, false
			}
			size = uint64(len(b))
		case 1:
			if len(b) < 16 {
				return nil, false
			}
			size, hdr = binary.BigEndian.Uint64(b[8:]), 16
		}
		if size < hdr || size > uint64(len(b)) {
			return nil, false
		}
		out = append(out, mp4Box{typ: typ, body: b[hdr:size]})
		b = b[size:]
		if len(out) > maxElements {
			return nil, false
		}
	}
	return out, true
}

// mp4Track is what the parser keeps of one trak.
type mp4Track struct {
	handler    string
	format     string // sample entry type of the only stsd entry
	width      int    // sample entry width and height
	height     int
	config     []byte // avcC or hvcC payload
	timescale  uint32
	sttsCount  int64 // sum of the sample counts
	sttsTime   int64 // sum of count × duration
	matrix     [9]int32
	matrixSeen bool
	chapters   bool // a tref/chap reference (QuickTime chapter tracks)
}

// mp4Header reads the header of an ISO BMFF file.
func mp4Header(data []byte) (Info, bool) {
	top, ok := mp4Boxes(data, true)
	if !ok {
		return Info{}, false
	}
	var moov []byte
	for _, bx := range top {
		switch bx.typ {
		case "moov":
			if !once(&moov, bx.body) {
				return Info{}, false
			}
		case "moof", "hoov", "cmov":
			return Info{}, false
		}
	}
	if moov == nil {
		return Info{}, false
	}
	kids, ok := mp4Boxes(moov, false)
	if !ok {
		return Info{}, false
	}
	var (
		mvhd   []byte
		tracks []mp4Track
	)
	for _, bx := range kids {
		switch bx.typ {
		case "mvhd":
			if !once(&mvhd, bx.body) {
				return Info{}, false
			}
		case "trak":
			t, ok := mp4ReadTrak(bx.body)
			if !ok {
				return Info{}, false
			}
			tracks = append(tracks, t)
		case "mvex", "cmov":
			return Info{}, false
		case "udta", "meta":
			// Cover art becomes an extra video stream in FFmpeg.
			if mp4HasArtwork(bx.body) {
				return Info{}, false
			}
		}
	}
	timescale, duration, movie, ok := mp4ReadMvhd(mvhd)
	if !ok {
		return Info{}, false
	}
	return mp4Info(tracks, timescale, duration, movie)
}

// mp4Info picks the stream ffprobe's v:0 selects and computes its Info.
func mp4Info(tracks []mp4Track, timescale uint32, duration uint64, movie [9]int32) (Info, bool) {
	var t *mp4Track
	for i := range tracks {
		if tracks[i].chapters {
			return Info{}, false
		}
		if tracks[i].handler == "vide" {
			t = &tracks[i]
			break
		}
		// A track of another handler is a video stream to FFmpeg when its
		// sample entry names a video codec: only sound tracks are surely not.
		if tracks[i].handler != "soun" {
			return Info{}, false
		}
	}
	if t == nil || t.timescale == 0 || t.timescale > math.MaxInt32 || t.sttsTime <= 0 || t.sttsCount > math.MaxInt32 {
		return Info{}, false
	}
	info := Info{DeclaredFrames: int(t.sttsCount)}
	var w, h int
	var ok bool
	switch t.format {
	case "avc1", "avc3":
		info.Codec = "h264"
		w, h, ok = avcConfigSize(t.config)
	case "hvc1", "hev1":
		info.Codec = "hevc"
		w, h, ok = hevcConfigSize(t.config)
	}
	if !ok || w != t.width || h != t.height {
		return Info{}, false
	}
	num, den, ok := reduceRational(int64(t.timescale)*t.sttsCount, t.sttsTime, math.MaxInt32)
	if !ok || num <= 0 {
		return Info{}, false
	}
	info.FPS = float64(num) / float64(den)
	us, ok := rescaleRound(duration, 1000000, uint64(timescale))
	if !ok || us <= 0 {
		return Info{}, false
	}
	info.Duration = ffprobeSeconds(us)
	m, ok := mulDisplayMatrix(t.matrix, movie)
	if !ok {
		return Info{}, false
	}
	if info.Rotation, ok = matrixRotation(m); !ok {
		return Info{}, false
	}
	info.Width, info.Height = w, h
	if info.Rotation == 90 || info.Rotation == 270 {
		info.Width, info.Height = h, w
	}
	return info, true
}

// mp4ReadMvhd returns the movie timescale, duration and display matrix.
func mp4ReadMvhd(b []byte) (timescale uint32, duration uint64, matrix [9]int32, ok bool) {
	if len(b) < 4 {
		return 0, 0, matrix, false
	}
	var off int
	switch b[0] {
	case 0:
		off = 12
	case 1:
		off = 20
	default:
		return 0, 0, matrix, false
	}
	if len(b) < off+4+8+4+2+10+36 {
		return 0, 0, matrix, false
	}
	timescale = binary.BigEndian.Uint32(b[off:])
	if b[0] == 0 {
		duration = uint64(binary.BigEndian.Uint32(b[off+4:]))
		off += 8
	} else {
		duration = binary.BigEndian.Uint64(b[off+4:])
		off += 12
	}
	off += 4 + 2 + 10 // preferred rate and volume, reserved
	for i := range matrix {
		matrix[i] = int32(binary.BigEndian.Uint32(b[off+4*i:]))
	}
	ok = timescale > 0 && timescale <= math.MaxInt32 && duration > 0 && duration < 1<<62
	return timescale, duration, matrix, ok
}

// mp4ReadTrak collects one trak's fields.
func mp4ReadTrak(b []byte) (t mp4Track, ok bool) {
	kids, ok := mp4Boxes(b, false)
	if !ok {
		return t, false
	}
	var mdia []byte
	for _, bx := range kids {
		switch bx.typ {
		case "tkhd":
			if t.matrixSeen || !mp4ReadTkhd(bx.body, &t) {
				return t, false
			}
		case "mdia":
			if !once(&mdia, bx.body) {
				return t, false
			}
		case "tref":
			refs, ok := mp4Boxes(bx.body, false)
			if !ok {
				return t, false
			}
			for _, r := range refs {
				t.chapters = t.chapters || r.typ == "chap"
			}
		case "trak", "mdat", "moov":
			return t, false
		case "udta", "meta":
			// Cover art here too becomes a stream, numbered before the
			// tracks that follow.
			if mp4HasArtwork(bx.body) {
				return t, false
			}
		}
	}
	if !t.matrixSeen || mdia == nil {
		return t, false
	}
	return t, mp4ReadMdia(mdia, &t)
}

// mp4ReadTkhd reads the display matrix of a tkhd.
func mp4ReadTkhd(b []byte, t *mp4Track) bool {
	off := 0
	switch {
	case len(b) > 0 && b[0] == 0:
		off = 4 + 8 + 4 + 4 + 4 + 8 + 8
	case len(b) > 0 && b[0] == 1:
		off = 4 + 16 + 4 + 4 + 8 + 8 + 8
	default:
		return false
	}
	if len(b) < off+36+8 {
		return false
	}
	for i := range t.matrix {
		t.matrix[i] = int32(binary.BigEndian.Uint32(b[off+4*i:]))
	}
	t.matrixSeen = true
	return true
}

// mp4ReadMdia reads mdhd, hdlr and the sample table of a track.
func mp4ReadMdia(b []byte, t *mp4Track) bool {
	kids, ok := mp4Boxes(b, false)
	if !ok {
		return false
	}
	var minf []byte
	seen := map[string]bool{}
	for _, bx := range kids {
		if seen[bx.typ] && (bx.typ == "mdhd" || bx.typ == "hdlr" || bx.typ == "minf") {
			return false
		}
		seen[bx.typ] = true
		switch bx.typ {
		case "mdhd":
			if t.timescale, ok = mp4ReadMdhd(bx.body); !ok {
				return false
			}
		case "hdlr":
			if len(bx.body) < 12 {
				return false
			}
			t.handler = string(bx.body[8:12])
		case "minf":
			minf = bx.body
		}
	}
	if !seen["mdhd"] || !seen["hdlr"] || minf == nil {
		return false
	}
	kids, ok = mp4Boxes(minf, false)
	if !ok {
		return false
	}
	var stbl []byte
	for _, bx := range kids {
		if bx.typ == "stbl" {
			if !once(&stbl, bx.body) {
				return false
			}
		}
	}
	return stbl != nil && mp4ReadStbl(stbl, t)
}

// mp4ReadMdhd returns the media timescale.
func mp4ReadMdhd(b []byte) (uint32, bool) {
	switch {
	case len(b) >= 4+8+4 && b[0] == 0:
		return binary.BigEndian.Uint32(b[12:]), true
	case len(b) >= 4+16+4 && b[0] == 1:
		return binary.BigEndian.Uint32(b[20:]), true
	}
	return 0, false
}

// mp4ReadStbl reads the sample description and the time-to-sample table.
func mp4ReadStbl(b []byte, t *mp4Track) bool {
	kids, ok := mp4Boxes(b, false)
	if !ok {
		return false
	}
	var stsd, stts []byte
	for _, bx := range kids {
		switch bx.typ {
		case "stsd":
			if !once(&stsd, bx.body) {
				return false
			}
		case "stts":
			if !once(&stts, bx.body) {
				return false
			}
		}
	}
	if stsd == nil || stts == nil || !mp4ReadStsd(stsd, t) {
		return false
	}
	return mp4ReadStts(stts, t)
}

// mp4ReadStsd reads the only sample entry: its type, its width and height
// (for a visual entry) and its avcC or hvcC.
func mp4ReadStsd(b []byte, t *mp4Track) bool {
	if len(b) < 8 || binary.BigEndian.Uint32(b[4:]) != 1 {
		return false
	}
	entries, ok := mp4Boxes(b[8:], false)
	if !ok || len(entries) != 1 {
		return false
	}
	e := entries[0]
	t.format = e.typ
	if t.handler != "vide" {
		return true
	}
	// VisualSampleEntry: 6 reserved, data_reference_index, 16 bytes of
	// version, vendor and qualities, width, height, then 50 more bytes
	// before the child boxes.
	const fixed = 78
	if len(e.body) < fixed {
		return false
	}
	t.width = int(binary.BigEndian.Uint16(e.body[24:]))
	t.height = int(binary.BigEndian.Uint16(e.body[26:]))
	kids, ok := mp4Boxes(e.body[fixed:], false)
	if !ok {
		return false
	}
	for _, bx := range kids {
		if bx.typ == "avcC" || bx.typ == "hvcC" {
			if t.config != nil {
				return false
			}
			t.config = bx.body
		}
	}
	return true
}

// maxSttsDelta is FFmpeg's max_stts_delta default: larger sample durations
// are taken for negative corrections and rewritten.
const maxSttsDelta = math.MaxUint32 - 48000*10

// mp4ReadStts sums the time-to-sample table.
func mp4ReadStts(b []byte, t *mp4Track) bool {
	if len(b) < 8 {
		return false
	}
	n := uint64(binary.BigEndian.Uint32(b[4:]))
	if n > uint64(len(b)-8)/8 {
		// FFmpeg would read the entries that are missing from the next
		// box's bytes.
		return false
	}
	for i := range int(n) {
		count := int64(binary.BigEndian.Uint32(b[8+8*i:]))
		delta := binary.BigEndian.Uint32(b[12+8*i:])
		if delta > maxSttsDelta {
			return false
		}
		t.sttsCount += count
		t.sttsTime += count * int64(delta)
		if t.sttsTime > 1<<62 {
			return false
		}
	}
	return true
}

// once stores b in *dst; false when *dst was already set (a box that may
// appear once appeared again).
func once(dst *[]byte, b []byte) bool {
	if *dst != nil {
		return false
	}
	*dst = b
	return true
}

// mp4HasArtwork reports whether a udta or meta box holds cover art (a
// covr item, or a QuickTime metadata key naming artwork).
func mp4HasArtwork(b []byte) bool {
	for i := 0; i+4 <= len(b); i++ {
		switch string(b[i : i+4]) {
		case "covr", "artw":
			return true
		}
	}
	return false
}
