package media

import "github.com/mmgate/mmgate/imaging"

// orientedSize is the size after applying EXIF orientation o to a w×h image.
func orientedSize(w, h, o int) (int, int) {
	if o >= 5 && o <= 8 {
		return h, w
	}
	return w, h
}

// orient applies EXIF orientation o (2–8) as Pillow's exif_transpose does
// and returns a new image; orientation 1 (or any other value) returns src.
//
//	2 FLIP_LEFT_RIGHT  out[y][x] = in[y][W-1-x]
//	3 ROTATE_180       out[y][x] = in[H-1-y][W-1-x]
//	4 FLIP_TOP_BOTTOM  out[y][x] = in[H-1-y][x]
//	5 TRANSPOSE        out[y][x] = in[x][y]
//	6 ROTATE_270       out[y][x] = in[H-1-x][y]
//	7 TRANSVERSE       out[y][x] = in[H-1-x][W-1-y]
//	8 ROTATE_90        out[y][x] = in[x][W-1-y]
func orient(src *imaging.RGB, o int) *imaging.RGB {
	if o < 2 || o > 8 {
		return src
	}
	W, H := src.Width, src.Height
	ow, oh := orientedSize(W, H, o)
	dst := &imaging.RGB{Pix: make([]uint8, len(src.Pix)), Width: ow, Height: oh}
	s, d := src.Pix, dst.Pix
	switch o {
	case 2, 3, 4:
		for y := 0; y < oh; y++ {
			sy := y
			if o != 2 {
				sy = H - 1 - y
			}
			srow := s[sy*W*3 : (sy+1)*W*3]
			drow := d[y*ow*3 : (y+1)*ow*3]
			if o == 4 {
				copy(drow, srow)
				continue
			}
			for x := 0; x < ow; x++ {
				j := (W - 1 - x) * 3
				drow[x*3], drow[x*3+1], drow[x*3+2] = srow[j], srow[j+1], srow[j+2]
			}
		}
	default:
		// Transposing orientations: walk the source row by row (sequential
		// reads) and scatter each row into an output column: source row sy
		// becomes column sy (5, 8) or H-1-sy (6, 7), read left to right
		// (5, 6) or right to left (7, 8). Measured faster here than a
		// strip-blocked loop.
		for sy := 0; sy < H; sy++ {
			srow := s[sy*W*3 : (sy+1)*W*3]
			dx := sy
			if o == 6 || o == 7 {
				dx = H - 1 - sy
			}
			i, step := dx*3, ow*3
			if o == 7 || o == 8 {
				i, step = ((W-1)*ow+dx)*3, -ow*3
			}
			for sx := 0; sx < W; sx++ {
				d[i], d[i+1], d[i+2] = srow[sx*3], srow[sx*3+1], srow[sx*3+2]
				i += step
			}
		}
	}
	return dst
}
