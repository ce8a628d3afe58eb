package video

import (
	"encoding/binary"
	"math"
	"slices"
)

// This file answers: where are the samples of an MP4 file's H.264 track,
// in decoding order, and in which order does FFmpeg present them? It reads
// the sample table (stsz, stsc, stco or co64, stts, ctts, stss) and the edit
// list of the track the header reader chose, and gives up (ok false)
// wherever FFmpeg 5.1's demuxer could present another set of frames than
// every sample once: edit lists other than one edit that starts at the
// first frame and covers them all (libavformat/mov.c mov_fix_index), tied
// or negative composition offsets, several sample descriptions, sample
// entries carrying colour or field information (which the elementary
// stream would lose), tables that disagree on the sample count.

// maxSamples bounds the samples of a track the skipping decode takes.
const maxSamples = 1 << 20

// mp4Sample is one sample of the video track.
type mp4Sample struct {
	off  int64 // byte offset in the file
	size int   // bytes
	cts  int64 // composition time, media timescale
	dur  int64 // stts duration
	key  bool  // a sync sample
}

// mp4Stream is the H.264 track as an elementary stream: its decoder
// configuration and its samples in decoding order.
type mp4Stream struct {
	config  []byte // avcC payload
	samples []mp4Sample
	// order lists the samples' decoding indices in presentation order
	// (ascending composition time), the order FFmpeg outputs frames in.
	order []int
}

// mp4Tables is what mp4Samples collects of the chosen track.
type mp4Tables struct {
	movieScale uint32
	mediaScale uint32
	elst       []byte
	entry      []mp4Box // children of the only avc1 sample entry
	stsz, stsc []byte
	stco, co64 []byte
	stts, ctts []byte
	stss       []byte
	seenStss   bool
}

// mp4Samples reads the sample table of the first video track of an ISO
// BMFF file whose header mp4Header accepted.
func mp4Samples(data []byte) (mp4Stream, bool) {
	var t mp4Tables
	if !mp4FindTables(data, &t) {
		return mp4Stream{}, false
	}
	var s mp4Stream
	for _, bx := range t.entry {
		switch bx.typ {
		case "avcC":
			s.config = bx.body
		case "pasp", "btrt":
		default:
			return mp4Stream{}, false // colr, fiel, clap and the unknown
		}
	}
	if s.config == nil {
		return mp4Stream{}, false
	}
	sizes, ok := mp4SampleSizes(t.stsz, len(data))
	if !ok {
		return mp4Stream{}, false
	}
	n := len(sizes)
	s.samples = make([]mp4Sample, n)
	for i, size := range sizes {
		s.samples[i].size = size
	}
	if !mp4ChunkOffsets(&t, s.samples, int64(len(data))) || !mp4Times(&t, s.samples) || !mp4SyncSamples(&t, s.samples) {
		return mp4Stream{}, false
	}
	s.order = make([]int, n)
	for i := range s.order {
		s.order[i] = i
	}
	slices.SortStableFunc(s.order, func(a, b int) int {
		return cmpInt64(s.samples[a].cts, s.samples[b].cts)
	})
	for p := 1; p < n; p++ {
		if s.samples[s.order[p]].cts == s.samples[s.order[p-1]].cts {
			return mp4Stream{}, false
		}
	}
	if !mp4EditKeepsAll(&t, s.samples, s.order) {
		return mp4Stream{}, false
	}
	return s, true
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// mp4FindTables walks to the first vide track's boxes.
func mp4FindTables(data []byte, t *mp4Tables) bool {
	top, ok := mp4Boxes(data, true)
	if !ok {
		return false
	}
	var moov []byte
	for _, bx := range top {
		if bx.typ == "moov" && !once(&moov, bx.body) {
			return false
		}
	}
	kids, ok := mp4Boxes(moov, false)
	if !ok {
		return false
	}
	for _, bx := range kids {
		switch bx.typ {
		case "mvhd":
			ts, _, _, ok := mp4ReadMvhd(bx.body)
			if !ok {
				return false
			}
			t.movieScale = ts
		case "trak":
			if t.mediaScale != 0 {
				continue
			}
			if video := mp4TrakTables(bx.body, t); video && t.mediaScale == 0 {
				return false // the first video track, unreadable
			}
		}
	}
	return t.movieScale > 0 && t.mediaScale > 0
}

// mp4TrakTables fills t from a trak when it is a video track; it returns
// false for a track of another kind or one it cannot read.
func mp4TrakTables(b []byte, t *mp4Tables) bool {
	kids, ok := mp4Boxes(b, false)
	if !ok {
		return false
	}
	var mdia, edts []byte
	for _, bx := range kids {
		switch bx.typ {
		case "mdia":
			mdia = bx.body
		case "edts":
			edts = bx.body
		}
	}
	m := mp4Child(mdia)
	if hdlr := m["hdlr"]; len(hdlr) < 12 || string(hdlr[8:12]) != "vide" {
		return false
	}
	scale, ok := mp4ReadMdhd(m["mdhd"])
	if !ok || scale == 0 || scale > math.MaxInt32 {
		return true // a video track, unreadable: mediaScale stays 0
	}
	st := mp4Child(mp4Child(m["minf"])["stbl"])
	stsd := st["stsd"]
	if len(stsd) < 8 || binary.BigEndian.Uint32(stsd[4:]) != 1 {
		return true
	}
	entries, ok := mp4Boxes(stsd[8:], false)
	if !ok || len(entries) != 1 || entries[0].typ != "avc1" || len(entries[0].body) < 78 {
		return true
	}
	if t.entry, ok = mp4Boxes(entries[0].body[78:], false); !ok {
		return true
	}
	if edts != nil {
		if t.elst = mp4Child(edts)["elst"]; t.elst == nil {
			return true
		}
	}
	t.stsz, t.stsc, t.stco, t.co64 = st["stsz"], st["stsc"], st["stco"], st["co64"]
	t.stts, t.ctts = st["stts"], st["ctts"]
	t.stss, t.seenStss = st["stss"], st["stss"] != nil
	if st["stz2"] != nil || (t.stco == nil) == (t.co64 == nil) {
		return true
	}
	t.mediaScale = scale
	return true
}

// mp4Child maps the box types of b to their payloads; nil when b does not
// split into boxes or a type repeats (so that every lookup then fails).
func mp4Child(b []byte) map[string][]byte {
	kids, ok := mp4Boxes(b, false)
	if !ok {
		return nil
	}
	m := make(map[string][]byte, len(kids))
	for _, bx := range kids {
		if _, dup := m[bx.typ]; dup {
			return nil
		}
		m[bx.typ] = bx.body
	}
	return m
}

// mp4SampleSizes reads stsz; no sample may be empty, so a file of size
// bytes has at most that many.
func mp4SampleSizes(b []byte, size int) ([]int, bool) {
	if len(b) < 12 {
		return nil, false
	}
	fixed := binary.BigEndian.Uint32(b[4:])
	n := int(binary.BigEndian.Uint32(b[8:]))
	if n < 1 || n > min(maxSamples, size) || (fixed == 0 && len(b) < 12+4*n) {
		return nil, false
	}
	sizes := make([]int, n)
	for i := range sizes {
		size := fixed
		if fixed == 0 {
			size = binary.BigEndian.Uint32(b[12+4*i:])
		}
		if size == 0 || size > math.MaxInt32 {
			return nil, false
		}
		sizes[i] = int(size)
	}
	return sizes, true
}

// mp4ChunkOffsets places the samples in the file from stsc and stco or
// co64, as mov_build_index does; the chunks must hold exactly the samples
// stsz lists, each inside the file.
func mp4ChunkOffsets(t *mp4Tables, samples []mp4Sample, fileSize int64) bool {
	b, width := t.stco, 4
	if b == nil {
		b, width = t.co64, 8
	}
	if len(b) < 8 || len(t.stsc) < 8 {
		return false
	}
	chunks := int(binary.BigEndian.Uint32(b[4:]))
	entries := int(binary.BigEndian.Uint32(t.stsc[4:]))
	if chunks > (len(b)-8)/width || entries < 1 || entries > (len(t.stsc)-8)/12 {
		return false
	}
	stsc := func(i int) (first, count, desc uint32) {
		e := t.stsc[8+12*i:]
		return binary.BigEndian.Uint32(e), binary.BigEndian.Uint32(e[4:]), binary.BigEndian.Uint32(e[8:])
	}
	next, entry := 0, -1
	var perChunk uint32
	for c := range chunks {
		if entry+1 < entries {
			if first, count, desc := stsc(entry + 1); int64(first) == int64(c)+1 {
				if count == 0 || desc != 1 {
					return false
				}
				entry, perChunk = entry+1, count
			}
		}
		if entry < 0 {
			return false // the first entry does not start at chunk 1
		}
		var off int64
		if width == 4 {
			off = int64(binary.BigEndian.Uint32(b[8+4*c:]))
		} else if off = int64(binary.BigEndian.Uint64(b[8+8*c:])); off < 0 {
			return false
		}
		for range perChunk {
			if next >= len(samples) {
				return false
			}
			s := &samples[next]
			if off > fileSize-int64(s.size) {
				return false
			}
			s.off = off
			off += int64(s.size)
			next++
		}
	}
	return next == len(samples) && entry == entries-1
}

// mp4Times sets each sample's duration and composition time from stts and
// ctts, which must both count every sample; composition offsets may not be
// negative (FFmpeg would shift the decoding times).
func mp4Times(t *mp4Tables, samples []mp4Sample) bool {
	if !mp4Runs(t.stts, len(samples), func(i int, delta uint32) bool {
		samples[i].dur = int64(delta)
		return delta <= maxSttsDelta
	}) {
		return false
	}
	var dts int64
	for i := range samples {
		samples[i].cts = dts
		dts += samples[i].dur
	}
	if t.ctts == nil {
		return true
	}
	return mp4Runs(t.ctts, len(samples), func(i int, off uint32) bool {
		samples[i].cts += int64(off)
		return int32(off) >= 0
	})
}

// mp4Runs calls fn for each sample of a table of (count, value) runs whose
// counts add up to n.
func mp4Runs(b []byte, n int, fn func(i int, v uint32) bool) bool {
	if len(b) < 8 {
		return false
	}
	entries := int(binary.BigEndian.Uint32(b[4:]))
	if entries > (len(b)-8)/8 {
		return false
	}
	i := 0
	for e := range entries {
		count := int(binary.BigEndian.Uint32(b[8+8*e:]))
		v := binary.BigEndian.Uint32(b[12+8*e:])
		if count > n-i {
			return false
		}
		for range count {
			if !fn(i, v) {
				return false
			}
			i++
		}
	}
	return i == n
}

// mp4SyncSamples marks the sync samples: those stss lists (in increasing
// order), or every sample when there is no stss.
func mp4SyncSamples(t *mp4Tables, samples []mp4Sample) bool {
	if !t.seenStss {
		for i := range samples {
			samples[i].key = true
		}
		return true
	}
	b := t.stss
	if len(b) < 8 {
		return false
	}
	n := int(binary.BigEndian.Uint32(b[4:]))
	if n < 1 || n > (len(b)-8)/4 {
		return false
	}
	last := 0
	for i := range n {
		k := int(binary.BigEndian.Uint32(b[8+4*i:]))
		if k <= last || k > len(samples) {
			return false
		}
		samples[k-1].key = true
		last = k
	}
	return true
}

// mp4EditKeepsAll reports whether FFmpeg's edit-list handling presents
// every sample: no edit list, or a single edit at rate 1 that starts at the
// first sample's composition time (a sync sample, presented first) and
// lasts past every sample's, and no sync sample before the last one whose
// end would close the edit early (mov_fix_index stops at the second sync
// sample that ends at or after the edit's end).
func mp4EditKeepsAll(t *mp4Tables, samples []mp4Sample, order []int) bool {
	if t.elst == nil {
		return true
	}
	b := t.elst
	if len(b) < 8 || binary.BigEndian.Uint32(b[4:]) != 1 {
		return false
	}
	var dur uint64
	var start int64
	var rate uint32
	switch {
	case b[0] == 0 && len(b) >= 8+12:
		dur, start = uint64(binary.BigEndian.Uint32(b[8:])), int64(int32(binary.BigEndian.Uint32(b[12:])))
		rate = binary.BigEndian.Uint32(b[16:])
	case b[0] == 1 && len(b) >= 8+20:
		dur, start = binary.BigEndian.Uint64(b[8:]), int64(binary.BigEndian.Uint64(b[16:]))
		rate = binary.BigEndian.Uint32(b[24:])
	default:
		return false
	}
	end, ok := rescaleRound(dur, uint64(t.mediaScale), uint64(t.movieScale))
	if !ok || rate != 1<<16 || start < 0 || dur == 0 || dur > 1<<62 {
		return false
	}
	end += start
	first := samples[0]
	if !first.key || first.cts != start || order[0] != 0 {
		return false
	}
	closing := 0
	for i, s := range samples {
		if s.cts >= end {
			return false
		}
		if s.key && s.cts+s.dur >= end && i < len(samples)-1 {
			if closing++; closing > 1 {
				return false
			}
		}
	}
	return true
}
