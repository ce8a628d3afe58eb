package resample

// The portable inner loops. Pillow accumulates in a signed 32-bit int
// started at 1<<21 (half of 1<<22), shifts right arithmetically by 22 and
// clamps to 0..255; integer addition is associative, so the taps may be
// summed in any order. The unrolled variants exist because a fixed tap count
// lets the compiler keep every row (or every weight) in a register and drop
// bounds checks from the loop.

const bias = int32(1) << (precisionBits - 1)

func clip8(v int32) uint8 {
	v >>= precisionBits
	return uint8(min(max(v, 0), 255))
}

// hpassGo filters output pixels [x0, x1) of one row of packed RGB: src has
// t.nIn pixels, dst has t.nOut. It uses the table's fixed-count form (fixLo,
// fixW), in which every output pixel reads the same number of source
// pixels, the padding weights being 0.
func hpassGo(dst, src []uint8, t *table, x0, x1 int) {
	switch t.fixN {
	case 1:
		hpass1(dst, src, t, x0, x1)
	case 2:
		hpass2(dst, src, t, x0, x1)
	case 3:
		hpass3(dst, src, t, x0, x1)
	case 4:
		hpass4(dst, src, t, x0, x1)
	case 5:
		hpass5(dst, src, t, x0, x1)
	case 6:
		hpass6(dst, src, t, x0, x1)
	case 7:
		hpass7(dst, src, t, x0, x1)
	case 8:
		hpass8(dst, src, t, x0, x1)
	default:
		hpassN(dst, src, t, x0, x1)
	}
}

func hpassN(dst, src []uint8, t *table, x0, x1 int) {
	n := t.fixN
	dst = dst[:t.nOut*3]
	for x := x0; x < x1; x++ {
		s := src[int(t.fixLo[x])*3:][: n*3 : n*3]
		k := t.fixW[x*n:][:n:n]
		r, g, b := bias, bias, bias
		for j, w := range k {
			p := s[j*3 : j*3+3 : j*3+3]
			r += int32(p[0]) * w
			g += int32(p[1]) * w
			b += int32(p[2]) * w
		}
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass1(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*1 : x1*1]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:3:3]
		k := ws[x*1:][:1:1]
		r := bias + int32(s[0])*k[0]
		g := bias + int32(s[1])*k[0]
		b := bias + int32(s[2])*k[0]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass2(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*2 : x1*2]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:6:6]
		k := ws[x*2:][:2:2]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass3(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*3 : x1*3]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:9:9]
		k := ws[x*3:][:3:3]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1] + int32(s[6])*k[2]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1] + int32(s[7])*k[2]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1] + int32(s[8])*k[2]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass4(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*4 : x1*4]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:12:12]
		k := ws[x*4:][:4:4]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1] + int32(s[6])*k[2] + int32(s[9])*k[3]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1] + int32(s[7])*k[2] + int32(s[10])*k[3]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1] + int32(s[8])*k[2] + int32(s[11])*k[3]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass5(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*5 : x1*5]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:15:15]
		k := ws[x*5:][:5:5]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1] + int32(s[6])*k[2] + int32(s[9])*k[3] + int32(s[12])*k[4]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1] + int32(s[7])*k[2] + int32(s[10])*k[3] + int32(s[13])*k[4]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1] + int32(s[8])*k[2] + int32(s[11])*k[3] + int32(s[14])*k[4]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass6(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*6 : x1*6]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:18:18]
		k := ws[x*6:][:6:6]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1] + int32(s[6])*k[2] + int32(s[9])*k[3] + int32(s[12])*k[4] + int32(s[15])*k[5]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1] + int32(s[7])*k[2] + int32(s[10])*k[3] + int32(s[13])*k[4] + int32(s[16])*k[5]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1] + int32(s[8])*k[2] + int32(s[11])*k[3] + int32(s[14])*k[4] + int32(s[17])*k[5]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass7(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*7 : x1*7]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:21:21]
		k := ws[x*7:][:7:7]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1] + int32(s[6])*k[2] + int32(s[9])*k[3] + int32(s[12])*k[4] + int32(s[15])*k[5] + int32(s[18])*k[6]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1] + int32(s[7])*k[2] + int32(s[10])*k[3] + int32(s[13])*k[4] + int32(s[16])*k[5] + int32(s[19])*k[6]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1] + int32(s[8])*k[2] + int32(s[11])*k[3] + int32(s[14])*k[4] + int32(s[17])*k[5] + int32(s[20])*k[6]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

func hpass8(dst, src []uint8, t *table, x0, x1 int) {
	dst = dst[:t.nOut*3]
	lo := t.fixLo[x0:x1]
	ws := t.fixW[x0*8 : x1*8]
	dst = dst[x0*3 : x1*3]
	for x, l := range lo {
		s := src[int(l)*3:][:24:24]
		k := ws[x*8:][:8:8]
		r := bias + int32(s[0])*k[0] + int32(s[3])*k[1] + int32(s[6])*k[2] + int32(s[9])*k[3] + int32(s[12])*k[4] + int32(s[15])*k[5] + int32(s[18])*k[6] + int32(s[21])*k[7]
		g := bias + int32(s[1])*k[0] + int32(s[4])*k[1] + int32(s[7])*k[2] + int32(s[10])*k[3] + int32(s[13])*k[4] + int32(s[16])*k[5] + int32(s[19])*k[6] + int32(s[22])*k[7]
		b := bias + int32(s[2])*k[0] + int32(s[5])*k[1] + int32(s[8])*k[2] + int32(s[11])*k[3] + int32(s[14])*k[4] + int32(s[17])*k[5] + int32(s[20])*k[6] + int32(s[23])*k[7]
		d := dst[x*3 : x*3+3 : x*3+3]
		d[0], d[1], d[2] = clip8(r), clip8(g), clip8(b)
	}
}

// vrowGo combines n rows: dst[i] = clip8(bias + Σ_j rows[j][i]·w[j]).
// Every row has at least len(dst) samples; acc is scratch of at least
// len(dst) entries, used only when n exceeds the unrolled variants.
func vrowGo(dst []uint8, rows [][]uint8, w []int32, acc []int32) {
	switch len(rows) {
	case 1:
		vrow1(dst, rows, w)
	case 2:
		vrow2(dst, rows, w)
	case 3:
		vrow3(dst, rows, w)
	case 4:
		vrow4(dst, rows, w)
	case 5:
		vrow5(dst, rows, w)
	case 6:
		vrow6(dst, rows, w)
	case 7:
		vrow7(dst, rows, w)
	case 8:
		vrow8(dst, rows, w)
	default:
		vrowN(dst, rows, w, acc)
	}
}

func vrowN(dst []uint8, rows [][]uint8, w []int32, acc []int32) {
	n := len(dst)
	acc = acc[:n]
	for i := range acc {
		acc[i] = bias
	}
	for j, r := range rows {
		wj := w[j]
		r = r[:n]
		for i, v := range r {
			acc[i] += int32(v) * wj
		}
	}
	for i, v := range acc {
		dst[i] = clip8(v)
	}
}

func vrow1(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:1]
	w = w[:1]
	r0, w0 := rows[0][:n], w[0]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0)
	}
}

func vrow2(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:2]
	w = w[:2]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1)
	}
}

func vrow3(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:3]
	w = w[:3]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	r2, w2 := rows[2][:n], w[2]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1 + int32(r2[i])*w2)
	}
}

func vrow4(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:4]
	w = w[:4]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	r2, w2 := rows[2][:n], w[2]
	r3, w3 := rows[3][:n], w[3]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1 + int32(r2[i])*w2 + int32(r3[i])*w3)
	}
}

func vrow5(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:5]
	w = w[:5]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	r2, w2 := rows[2][:n], w[2]
	r3, w3 := rows[3][:n], w[3]
	r4, w4 := rows[4][:n], w[4]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1 + int32(r2[i])*w2 + int32(r3[i])*w3 + int32(r4[i])*w4)
	}
}

func vrow6(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:6]
	w = w[:6]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	r2, w2 := rows[2][:n], w[2]
	r3, w3 := rows[3][:n], w[3]
	r4, w4 := rows[4][:n], w[4]
	r5, w5 := rows[5][:n], w[5]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1 + int32(r2[i])*w2 + int32(r3[i])*w3 + int32(r4[i])*w4 + int32(r5[i])*w5)
	}
}

func vrow7(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:7]
	w = w[:7]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	r2, w2 := rows[2][:n], w[2]
	r3, w3 := rows[3][:n], w[3]
	r4, w4 := rows[4][:n], w[4]
	r5, w5 := rows[5][:n], w[5]
	r6, w6 := rows[6][:n], w[6]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1 + int32(r2[i])*w2 + int32(r3[i])*w3 + int32(r4[i])*w4 + int32(r5[i])*w5 + int32(r6[i])*w6)
	}
}

func vrow8(dst []uint8, rows [][]uint8, w []int32) {
	n := len(dst)
	rows = rows[:8]
	w = w[:8]
	r0, w0 := rows[0][:n], w[0]
	r1, w1 := rows[1][:n], w[1]
	r2, w2 := rows[2][:n], w[2]
	r3, w3 := rows[3][:n], w[3]
	r4, w4 := rows[4][:n], w[4]
	r5, w5 := rows[5][:n], w[5]
	r6, w6 := rows[6][:n], w[6]
	r7, w7 := rows[7][:n], w[7]
	for i := 0; i < n; i++ {
		dst[i] = clip8(bias + int32(r0[i])*w0 + int32(r1[i])*w1 + int32(r2[i])*w2 + int32(r3[i])*w3 + int32(r4[i])*w4 + int32(r5[i])*w5 + int32(r6[i])*w6 + int32(r7[i])*w7)
	}
}

// vrowTail computes samples [from, len(dst)) of a vertical output row.
func vrowTail(dst []uint8, rows [][]uint8, w []int32, from int) {
	for i := from; i < len(dst); i++ {
		acc := bias
		for j, r := range rows {
			acc += int32(r[i]) * w[j]
		}
		dst[i] = clip8(acc)
	}
}
