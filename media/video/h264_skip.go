package video

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
)

// This file answers: which pictures of an H.264 track in MP4 may go
// undecoded without changing any other frame, and how is the rest fed to
// FFmpeg? A picture whose slices all have nal_ref_idc 0 is, by the
// standard's definition, used by no other picture for prediction, and the
// decoder's state that later pictures depend on (frame_num, the picture
// order count of the last reference picture, the reference lists) is
// updated by reference pictures only. So when such a picture is not one of
// the sampled frames, its packet can be left out of the stream and every
// other frame decodes to the same pixels and comes out in the same order;
// the sampled frames' positions in the output move down by the number of
// left-out frames presented before them. The remaining samples are written
// as an Annex B elementary stream (start codes, the avcC parameter sets
// first) that FFmpeg reads from a pipe with its h264 demuxer.
//
// What the container adds to the frames must then not matter, so the
// stream qualifies only where mp4Samples follows the sample table and edit
// list exactly (every sample presented once, in composition-time order),
// the display matrix is the identity, the sample entry has no colour or
// field boxes, and the SPS fixes the reorder depth (bitstream_restriction)
// and codes frames only. A sample is left out only when it holds one
// picture of non-reference slices and nothing else but access unit
// delimiters, filler and SEI messages of the kinds that describe that
// picture alone (buffering period, picture timing, unregistered user data).

// h264Skip is a track the skipping decode can feed.
type h264Skip struct {
	avcConfig
	samples   []mp4Sample
	order     []int  // decoding index of each presented frame
	droppable []bool // by decoding index
}

// h264Skippable reads data (an MP4 whose header was read in Go as H.264,
// rotation 0) for the skipping decode; ok is false where it does not
// qualify.
func h264Skippable(data []byte) (*h264Skip, bool) {
	st, ok := mp4Samples(data)
	if !ok {
		return nil, false
	}
	s := &h264Skip{samples: st.samples, order: st.order}
	if s.avcConfig, ok = avcConfigParams(st.config); !ok {
		return nil, false
	}
	s.droppable = make([]bool, len(s.samples))
	some := false
	for i, sm := range s.samples {
		if s.droppable[i], ok = h264SampleDroppable(data[sm.off:sm.off+int64(sm.size)], s.nalLen); !ok {
			return nil, false
		}
		some = some || s.droppable[i]
	}
	if !some || !s.pocOrderAgrees(data) {
		return nil, false // nothing to gain, or an order the package does not follow
	}
	return s, true
}

// avcConfig is what the skipping decode reads of an avcC record.
type avcConfig struct {
	nalLen int      // bytes of each NAL unit's length prefix
	params [][]byte // the parameter sets, SPS first
	sps    h264SPS
	// bottomPOC lists the PPS ids with
	// bottom_field_pic_order_in_frame_present_flag.
	bottomPOC map[uint32]bool
}

// avcConfigParams reads an avcC record: the NAL length size and its one
// SPS (frames only, reorder depth fixed) and its PPSs.
func avcConfigParams(rec []byte) (c avcConfig, ok bool) {
	if len(rec) < 7 || rec[0] != 1 || rec[5]&0x1f != 1 {
		return c, false
	}
	c.nalLen = int(rec[4]&3) + 1
	if c.nalLen == 3 {
		return c, false
	}
	b := rec[6:]
	next := func() []byte {
		if len(b) < 2 {
			return nil
		}
		n := int(binary.BigEndian.Uint16(b))
		if n < 1 || len(b) < 2+n {
			return nil
		}
		nal := b[2 : 2+n]
		b = b[2+n:]
		return nal
	}
	sps := next()
	if len(sps) < 2 || sps[0]&0x9f != 7 {
		return c, false
	}
	if c.sps, ok = h264ParseSPS(unescapeRBSP(sps[1:])); !ok || !c.sps.frameOnly || !c.sps.reorderFixed {
		return c, false
	}
	c.params = append(c.params, sps)
	if len(b) < 1 || b[0] < 1 {
		return c, false
	}
	npps := int(b[0])
	b = b[1:]
	c.bottomPOC = map[uint32]bool{}
	for range npps {
		pps := next()
		if pps == nil || pps[0]&0x9f != 8 {
			return c, false
		}
		// pic_parameter_set_id, seq_parameter_set_id,
		// entropy_coding_mode_flag, bottom_field_pic_order_in_frame_present_flag
		r := &bitReader{b: unescapeRBSP(pps[1:min(len(pps), 16)])}
		id := r.ue()
		r.ue()
		r.skip(1)
		bottom := r.flag()
		if _, dup := c.bottomPOC[id]; r.err || dup || id > 255 {
			return c, false
		}
		c.bottomPOC[id] = bottom
		c.params = append(c.params, pps)
	}
	return c, true
}

// h264SampleDroppable walks the length-prefixed NAL units of one sample:
// ok when they tile it and make one picture the package understands,
// droppable when that picture may be left out.
func h264SampleDroppable(b []byte, nalLen int) (droppable, ok bool) {
	droppable = true
	slices := 0
	for len(b) > 0 {
		if len(b) < nalLen {
			return false, false
		}
		var n int
		for _, c := range b[:nalLen] {
			n = n<<8 | int(c)
		}
		b = b[nalLen:]
		if n < 1 || n > len(b) {
			return false, false
		}
		nal := b[:n]
		b = b[n:]
		if nal[0]&0x80 != 0 {
			return false, false
		}
		ref := nal[0] >> 5 & 3
		switch typ := nal[0] & 0x1f; typ {
		case 1, 5: // a slice; the first of a picture has first_mb_in_slice 0
			if len(nal) < 2 || (nal[1]&0x80 != 0) != (slices == 0) || (typ == 5 && ref == 0) {
				return false, false
			}
			slices++
			droppable = droppable && typ == 1 && ref == 0
		case 6:
			droppable = droppable && h264SEIPictureOnly(unescapeRBSP(nal[1:]))
		case 9, 12: // access unit delimiter, filler
		case 7, 8, 10, 11: // parameter sets, end of sequence or stream
			droppable = false
		default:
			return false, false
		}
	}
	return droppable && slices > 0, slices > 0
}

// h264SEIPictureOnly reports whether an SEI RBSP holds only messages about
// its own picture: buffering period (0), picture timing (1), unregistered
// user data (5).
func h264SEIPictureOnly(b []byte) bool {
	for len(b) > 0 && !(len(b) == 1 && b[0] == 0x80) {
		var typ, size int
		for _, v := range []*int{&typ, &size} {
			for {
				if len(b) == 0 || *v > 1<<20 {
					return false
				}
				c := b[0]
				b = b[1:]
				*v += int(c)
				if c != 0xff {
					break
				}
			}
		}
		if size > len(b) || (typ != 0 && typ != 1 && typ != 5) {
			return false
		}
		b = b[size:]
	}
	return true
}

var errSampleChanged = errors.New("video: a sample's NAL units changed after Open")

// skipPlan is one decode's selection over the elementary stream: which
// samples are left out and where the sampled frames then come out.
type skipPlan struct {
	drop    []bool // by decoding index
	dropped int
	indices []int // the sampled frames' positions among the decoded frames
}

// plan leaves out every droppable sample that is not one of the distinct
// sorted presentation indices.
func (s *h264Skip) plan(distinct []int) skipPlan {
	n := len(s.samples)
	keep := make([]bool, n)
	for _, p := range distinct {
		keep[p] = true
	}
	p := skipPlan{drop: make([]bool, n), indices: make([]int, 0, len(distinct))}
	for pres, d := range s.order {
		if keep[pres] {
			p.indices = append(p.indices, pres-p.dropped)
		} else if s.droppable[d] {
			p.drop[d] = true
			p.dropped++
		}
	}
	return p
}

// writeStream writes the samples not left out, in decoding order, as an
// Annex B stream read from src (the file), the parameter sets first.
func (s *h264Skip) writeStream(w io.Writer, src io.ReaderAt, drop []bool) error {
	bw := bufio.NewWriterSize(w, 1<<18)
	startCode := []byte{0, 0, 0, 1}
	for _, ps := range s.params {
		bw.Write(startCode)
		bw.Write(ps)
	}
	var buf []byte
	for i, sm := range s.samples {
		if drop[i] {
			continue
		}
		if cap(buf) < sm.size {
			buf = make([]byte, sm.size)
		}
		b := buf[:sm.size]
		if _, err := src.ReadAt(b, sm.off); err != nil {
			return err
		}
		for len(b) > 0 { // h264SampleDroppable checked the tiling at Open
			var n int
			for _, c := range b[:min(s.nalLen, len(b))] {
				n = n<<8 | int(c)
			}
			if len(b) < s.nalLen || n > len(b)-s.nalLen {
				return errSampleChanged
			}
			bw.Write(startCode)
			if _, err := bw.Write(b[s.nalLen : s.nalLen+n]); err != nil {
				return err
			}
			b = b[s.nalLen+n:]
		}
	}
	return bw.Flush()
}
