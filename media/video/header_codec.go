package video

import "encoding/binary"

// This file answers: what frame size does FFmpeg's decoder report for a
// stream, read from the stream's own headers? Each function returns ok false
// for anything outside what it reads exactly as FFmpeg 5.1 does; the caller
// then asks ffprobe.

// h264HighProfiles are the profile_idc values whose SPS carries chroma and
// bit-depth fields, as FFmpeg 5.1 lists them.
var h264HighProfiles = map[uint32]bool{100: true, 110: true, 122: true, 244: true, 44: true, 83: true, 86: true, 118: true, 128: true, 138: true, 144: true}

// avcConfigSize reads the one SPS of an AVCDecoderConfigurationRecord
// (ISO/IEC 14496-15 avcC, also Matroska's CodecPrivate for H.264) and
// returns the cropped frame size.
func avcConfigSize(rec []byte) (w, h int, ok bool) {
	if len(rec) < 7 || rec[0] != 1 || rec[5]&0x1f != 1 {
		return 0, 0, false
	}
	n := int(binary.BigEndian.Uint16(rec[6:8]))
	if len(rec) < 8+n || n < 2 || rec[8]&0x1f != 7 {
		return 0, 0, false
	}
	return h264SPSSize(unescapeRBSP(rec[9 : 8+n]))
}

// h264SPSSize parses an H.264 sequence parameter set (RBSP after the NAL
// header) as far as the frame cropping.
func h264SPSSize(rbsp []byte) (w, h int, ok bool) {
	s, ok := h264ParseSPS(rbsp)
	return s.width, s.height, ok
}

// h264SPS is what the package reads of an H.264 sequence parameter set.
type h264SPS struct {
	width, height int
	frameOnly     bool // frame_mbs_only_flag: no field pictures
	// reorderFixed: the VUI has bitstream_restriction_flag, so FFmpeg's
	// decoder takes its reorder depth from the SPS instead of guessing it
	// from the pictures it sees.
	reorderFixed    bool
	log2MaxFrameNum int // bits of frame_num
	pocType         int // pic_order_cnt_type
	log2MaxPOCLsb   int // bits of pic_order_cnt_lsb (type 0)
}

// h264ParseSPS parses an SPS as far as the frame cropping (ok), then the
// VUI for reorderFixed.
func h264ParseSPS(rbsp []byte) (s h264SPS, ok bool) {
	r := &bitReader{b: rbsp}
	profile := r.u(8)
	r.skip(16) // constraint flags, reserved bits, level_idc
	if r.ue() > 31 {
		return s, false
	}
	chroma := uint32(1)
	switch {
	case h264HighProfiles[profile]:
		if chroma = r.ue(); chroma > 3 || (chroma == 3 && r.flag()) {
			return s, false
		}
		luma, cdepth := r.ue(), r.ue()
		if luma != cdepth || luma > 6 {
			return s, false
		}
		r.skip(1) // qpprime_y_zero_transform_bypass_flag
		if r.flag() && !skipScalingLists(r, chroma) {
			return s, false
		}
	case profile == 134 || profile == 135 || profile == 139:
		// The standard gives these the chroma fields; FFmpeg 5.1 does not.
		return s, false
	}
	if s.log2MaxFrameNum = int(r.ue()) + 4; s.log2MaxFrameNum > 16 {
		return s, false
	}
	if !h264ReadPOC(r, &s) {
		return s, false
	}
	if r.ue() > 16 { // max_num_ref_frames
		return s, false
	}
	r.skip(1) // gaps_in_frame_num_value_allowed_flag
	mbw, mbh := int64(r.ue())+1, int64(r.ue())+1
	frameOnly := int64(r.u(1))
	mbh *= 2 - frameOnly
	if frameOnly == 0 {
		r.skip(1) // mb_adaptive_frame_field_flag
	}
	r.skip(1) // direct_8x8_inference_flag
	var cl, cr, ct, cb int64
	if r.flag() {
		cl, cr, ct, cb = int64(r.ue()), int64(r.ue()), int64(r.ue()), int64(r.ue())
	}
	if r.err || mbw*16 > maxSide || mbh*16 > maxSide {
		return s, false
	}
	stepX, stepY := int64(1), 2-frameOnly
	if chroma == 1 || chroma == 2 {
		stepX = 2
	}
	if chroma == 1 {
		stepY *= 2
	}
	w64, h64 := 16*mbw-(cl+cr)*stepX, 16*mbh-(ct+cb)*stepY
	if w64 <= 0 || h64 <= 0 {
		return s, false
	}
	s.width, s.height, s.frameOnly = int(w64), int(h64), frameOnly == 1
	s.reorderFixed = r.flag() && h264VUIRestricted(r)
	return s, true
}

// h264ReadPOC reads the SPS's picture order count fields.
func h264ReadPOC(r *bitReader, s *h264SPS) bool {
	s.pocType = int(r.ue())
	switch s.pocType {
	case 0:
		s.log2MaxPOCLsb = int(r.ue()) + 4
		return s.log2MaxPOCLsb <= 16
	case 1:
		r.skip(1)
		r.se()
		r.se()
		n := r.ue()
		if n >= 256 {
			return false
		}
		for range n {
			r.se()
		}
	case 2:
	default:
		return false
	}
	return true
}

// h264VUIRestricted reads vui_parameters() and reports whether it is whole
// and sets bitstream_restriction_flag with a reorder depth FFmpeg accepts.
func h264VUIRestricted(r *bitReader) bool {
	if r.flag() && r.u(8) == 255 { // aspect_ratio_idc Extended_SAR
		r.skip(32)
	}
	if r.flag() { // overscan_info_present_flag
		r.skip(1)
	}
	if r.flag() { // video_signal_type_present_flag
		r.skip(4)
		if r.flag() {
			r.skip(24)
		}
	}
	if r.flag() { // chroma_loc_info_present_flag
		r.ue()
		r.ue()
	}
	if r.flag() { // timing_info_present_flag
		r.skip(65)
	}
	nal := r.flag() && h264SkipHRD(r)
	vcl := r.flag() && h264SkipHRD(r)
	if nal || vcl {
		r.skip(1) // low_delay_hrd_flag
	}
	r.skip(1) // pic_struct_present_flag
	if !r.flag() || r.err {
		return false
	}
	r.skip(1) // motion_vectors_over_pic_boundaries_flag
	for range 4 {
		r.ue()
	}
	reorder, buffering := r.ue(), r.ue()
	return !r.err && reorder <= 16 && buffering <= 16
}

// h264SkipHRD reads past hrd_parameters(); it returns true.
func h264SkipHRD(r *bitReader) bool {
	n := r.ue() + 1
	if n > 32 {
		r.err = true
		return true
	}
	r.skip(8)
	for range n {
		r.ue()
		r.ue()
		r.skip(1)
	}
	r.skip(20)
	return true
}

// skipScalingLists reads past the SPS scaling lists (8 of them, 12 for
// 4:4:4): each is absent or a run of delta_scale codes that stops early
// once the running scale reaches 0.
func skipScalingLists(r *bitReader, chroma uint32) bool {
	n := 8
	if chroma == 3 {
		n = 12
	}
	for i := range n {
		if !r.flag() {
			continue
		}
		size := 16
		if i >= 6 {
			size = 64
		}
		last, next := int64(8), int64(8)
		for range size {
			if next != 0 {
				d := r.se()
				if d < -128 || d > 127 {
					return false
				}
				next = (last + d) & 0xff
			}
			if next != 0 {
				last = next
			}
		}
	}
	return !r.err
}

// hevcConfigSize reads the one SPS of an HEVCDecoderConfigurationRecord
// (hvcC, also Matroska's CodecPrivate for HEVC) and returns the size inside
// its conformance window.
func hevcConfigSize(rec []byte) (w, h int, ok bool) {
	if len(rec) < 23 || rec[0] != 1 {
		return 0, 0, false
	}
	var sps []byte
	p := rec[23:]
	for range int(rec[22]) {
		if len(p) < 3 {
			return 0, 0, false
		}
		typ, count := p[0]&0x3f, int(binary.BigEndian.Uint16(p[1:3]))
		p = p[3:]
		for range count {
			if len(p) < 2 {
				return 0, 0, false
			}
			n := int(binary.BigEndian.Uint16(p))
			if len(p) < 2+n {
				return 0, 0, false
			}
			if typ == 33 {
				if sps != nil || n < 3 {
					return 0, 0, false
				}
				sps = p[2 : 2+n]
			}
			p = p[2+n:]
		}
	}
	if sps == nil || (sps[0]>>1)&0x3f != 33 {
		return 0, 0, false
	}
	return hevcSPSSize(unescapeRBSP(sps[2:]))
}

// hevcSPSSize parses an HEVC sequence parameter set (RBSP after the NAL
// header) as far as the conformance window.
func hevcSPSSize(rbsp []byte) (w, h int, ok bool) {
	r := &bitReader{b: rbsp}
	r.skip(4) // sps_video_parameter_set_id
	sub := int(r.u(3))
	r.skip(1)      // sps_temporal_id_nesting_flag
	r.skip(88 + 8) // general profile, tier and level
	var profile, level [8]bool
	for i := range sub {
		profile[i], level[i] = r.flag(), r.flag()
	}
	if sub > 0 {
		r.skip(2 * (8 - sub))
	}
	for i := range sub {
		if profile[i] {
			r.skip(88)
		}
		if level[i] {
			r.skip(8)
		}
	}
	if sub > 6 || r.ue() > 15 {
		return 0, 0, false
	}
	chroma := r.ue()
	if chroma > 3 {
		return 0, 0, false
	}
	if chroma == 3 && r.flag() {
		chroma = 0 // separate colour planes: coded as monochrome
	}
	pw, ph := int64(r.ue()), int64(r.ue())
	var cl, cr, ct, cb int64
	if r.flag() {
		mx, my := int64(1), int64(1)
		if chroma == 1 || chroma == 2 {
			mx = 2
		}
		if chroma == 1 {
			my = 2
		}
		cl, cr, ct, cb = int64(r.ue())*mx, int64(r.ue())*mx, int64(r.ue())*my, int64(r.ue())*my
	}
	// Offsets FFmpeg finds invalid make it show the whole surface: left to
	// ffprobe, as are sizes beyond the parser's bounds.
	if r.err || pw <= 0 || ph <= 0 || pw > maxSide || ph > maxSide || cl+cr >= pw || ct+cb >= ph {
		return 0, 0, false
	}
	return int(pw - cl - cr), int(ph - ct - cb), true
}

// vp8KeyframeSize reads the frame size of a VP8 key frame.
func vp8KeyframeSize(frame []byte) (w, h int, ok bool) {
	if len(frame) < 10 || frame[0]&1 != 0 || frame[3] != 0x9d || frame[4] != 0x01 || frame[5] != 0x2a {
		return 0, 0, false
	}
	w = int(binary.LittleEndian.Uint16(frame[6:]) & 0x3fff)
	h = int(binary.LittleEndian.Uint16(frame[8:]) & 0x3fff)
	return w, h, w > 0 && h > 0
}

// vp9KeyframeSize reads the frame size from the uncompressed header of a
// VP9 key frame.
func vp9KeyframeSize(frame []byte) (w, h int, ok bool) {
	r := &bitReader{b: frame}
	if r.u(2) != 2 { // frame_marker
		return 0, 0, false
	}
	profile := r.u(1)
	profile |= r.u(1) << 1
	if profile == 3 {
		r.skip(1)
	}
	if showExisting := r.flag(); showExisting {
		return 0, 0, false
	}
	if interFrame := r.flag(); interFrame { // frame_type 1: not a key frame
		return 0, 0, false
	}
	r.skip(2) // show_frame, error_resilient_mode
	if r.u(24) != 0x498342 {
		return 0, 0, false
	}
	if profile >= 2 {
		r.skip(1) // ten_or_twelve_bit
	}
	if r.u(3) != 7 { // color_space other than RGB
		r.skip(1) // color_range
		if profile == 1 || profile == 3 {
			r.skip(3) // subsampling_x, subsampling_y, reserved_zero
		}
	} else if profile == 1 || profile == 3 {
		r.skip(1)
	}
	w, h = int(r.u(16))+1, int(r.u(16))+1
	return w, h, !r.err
}
