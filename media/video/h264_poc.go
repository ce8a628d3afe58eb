package video

import (
	"cmp"
	"slices"
)

// This file answers: does FFmpeg's H.264 decoder output the track's
// pictures in the order of their composition times? The decoder orders
// pictures by picture order count (POC) within each run that starts at an
// IDR picture, and outputs the runs one after another; the select filter
// counts frames in that order, while mp4Samples orders them by the
// container's composition times. The skipping decode maps sampled frames
// to samples through that order, so it runs only where the two agree.
//
// The POC is computed as the standard's clause 8.2.1 does for frames:
// type 0 from pic_order_cnt_lsb and the most significant part carried
// from the previous reference picture (with delta_pic_order_cnt_bottom),
// type 2 in decoding order; type 1 is not followed. The reset a
// memory_management_control_operation 5 makes is not read (it sits past
// the reference list syntax): a reset that changes the order shows as a
// disagreement with the composition times, and one that does not changes
// nothing here.

// pocOrderAgrees reports whether the decoder's output order of the samples
// equals s.order.
func (s *h264Skip) pocOrderAgrees(data []byte) bool {
	type key struct{ run, poc, dec int }
	keys := make([]key, len(s.samples))
	run, prevMsb, prevLsb := -1, 0, 0
	maxLsb := 1 << s.sps.log2MaxPOCLsb
	for i, sm := range s.samples {
		h, ok := s.firstSlice(data[sm.off : sm.off+int64(sm.size)])
		if !ok {
			return false
		}
		if h.idr {
			run, prevMsb, prevLsb = run+1, 0, 0
		}
		if run < 0 {
			return false // the stream does not start at an IDR picture
		}
		switch s.sps.pocType {
		case 0:
			msb := prevMsb
			switch {
			case h.lsb < prevLsb && prevLsb-h.lsb >= maxLsb/2:
				msb += maxLsb
			case h.lsb > prevLsb && h.lsb-prevLsb > maxLsb/2:
				msb -= maxLsb
			}
			top := msb + h.lsb
			keys[i] = key{run, min(top, top+h.bottom), i}
			if h.ref {
				prevMsb, prevLsb = msb, h.lsb
			}
		case 2:
			keys[i] = key{run, i, i}
		default:
			return false
		}
	}
	slices.SortFunc(keys, func(a, b key) int {
		if c := cmp.Compare(a.run, b.run); c != 0 {
			return c
		}
		return cmp.Compare(a.poc, b.poc)
	})
	for p, k := range keys {
		if k.dec != s.order[p] || (p > 0 && k.run == keys[p-1].run && k.poc == keys[p-1].poc) {
			return false
		}
	}
	return true
}

// sliceHead is what pocOrderAgrees reads of a picture's first slice.
type sliceHead struct {
	idr, ref bool
	lsb      int // pic_order_cnt_lsb
	bottom   int // delta_pic_order_cnt_bottom
}

// firstSlice reads the header of the first slice of a sample whose NAL
// units h264SampleDroppable checked, as far as the POC fields.
func (s *h264Skip) firstSlice(b []byte) (sliceHead, bool) {
	for len(b) >= s.nalLen {
		var n int
		for _, c := range b[:s.nalLen] {
			n = n<<8 | int(c)
		}
		b = b[s.nalLen:]
		if n < 1 || n > len(b) {
			return sliceHead{}, false
		}
		nal := b[:n]
		b = b[n:]
		if typ := nal[0] & 0x1f; typ != 1 && typ != 5 {
			continue
		}
		h := sliceHead{idr: nal[0]&0x1f == 5, ref: nal[0]>>5&3 != 0}
		r := &bitReader{b: unescapeRBSP(nal[1:min(len(nal), 48)])}
		r.ue() // first_mb_in_slice
		r.ue() // slice_type
		bottom, known := s.bottomPOC[r.ue()]
		r.skip(s.sps.log2MaxFrameNum)
		if h.idr {
			r.ue() // idr_pic_id
		}
		if s.sps.pocType == 0 {
			h.lsb = int(r.u(s.sps.log2MaxPOCLsb))
			if bottom {
				h.bottom = int(r.se())
			}
		}
		return h, known && !r.err
	}
	return sliceHead{}, false
}
