// Coefficient arrays for libjpeg decompressors in fresh anonymous mappings.
//
// A progressive or multi-scan JPEG is decoded through whole-image arrays of
// DCT coefficients (16 MB for a 2560x1600 4:2:2 photo) that the decoder
// asks for through cinfo->mem->request_virt_barray with pre_zero set.
// libjpeg's manager takes them from malloc and clears each row with memset
// on first access, so every 4 KiB page faults in the middle of the decode.
// A fresh anonymous mapping is zero already: the arrays live in one mapping
// each, advised for transparent huge pages when it spans one, and the
// access method only checks what libjpeg's checks (the same errors for the
// same calls) and returns row pointers. The contents the decoder sees are
// the same: zeros where nothing was written yet.
//
// mmgate_coefs_install is called right after jpeg_create_decompress; it
// replaces the four methods that touch coefficient arrays and keeps the
// originals for what is not theirs. Sample arrays (request_virt_sarray)
// stay with libjpeg.
#ifndef MMGATE_JPEG_COEFS_H
#define MMGATE_JPEG_COEFS_H

#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <jpeglib.h>
#include <jerror.h>

// One coefficient array. libjpeg only hands the pointer back to the
// methods below, so its own control struct is never needed.
typedef struct mmgate_coef_array {
	JBLOCKARRAY rows;    // row pointers into mem, NULL until realized
	void* mem;           // the mapping
	size_t len;          // its length
	JDIMENSION blocksperrow, numrows, maxaccess;
	JDIMENSION first_undef_row; // as libjpeg tracks it, for its checks
	boolean pre_zero;
	struct mmgate_coef_array* next;
} mmgate_coef_array;

// What a decompressor's hooks share; it must outlive the decompressor's
// last call into libjpeg and is reached through cinfo->mem's owner.
typedef struct {
	mmgate_coef_array* arrays;
	void (*realize)(j_common_ptr);
	void (*free_pool)(j_common_ptr, int);
	void (*self_destruct)(j_common_ptr);
} mmgate_coefs;

#define MMGATE_HUGE_PAGE ((size_t)2 << 20)

static mmgate_coefs* mmgate_coefs_of(j_common_ptr c);

static void mmgate_coefs_release(mmgate_coefs* s) {
	while (s->arrays != NULL) {
		mmgate_coef_array* a = s->arrays;
		s->arrays = a->next;
		if (a->mem != NULL) munmap(a->mem, a->len);
		free(a->rows);
		free(a);
	}
}

static jvirt_barray_ptr mmgate_coefs_request(j_common_ptr c, int pool_id, boolean pre_zero,
		JDIMENSION blocksperrow, JDIMENSION numrows, JDIMENSION maxaccess) {
	mmgate_coefs* s = mmgate_coefs_of(c);
	mmgate_coef_array* a;
	if (pool_id != JPOOL_IMAGE) ERREXIT1(c, JERR_BAD_POOL_ID, pool_id);
	a = (mmgate_coef_array*)calloc(1, sizeof(*a));
	if (a == NULL) ERREXIT1(c, JERR_OUT_OF_MEMORY, 7);
	a->blocksperrow = blocksperrow;
	a->numrows = numrows;
	a->maxaccess = maxaccess;
	a->pre_zero = pre_zero;
	a->next = s->arrays;
	s->arrays = a;
	return (jvirt_barray_ptr)(void*)a;
}

static void mmgate_coefs_realize(j_common_ptr c) {
	mmgate_coefs* s = mmgate_coefs_of(c);
	mmgate_coef_array* a;
	for (a = s->arrays; a != NULL; a = a->next) {
		size_t row, need, off = 0;
		void* m;
		JDIMENSION i;
		if (a->rows != NULL) continue;
		row = (size_t)a->blocksperrow * sizeof(JBLOCK);
		if (a->numrows != 0 && row > SIZE_MAX / a->numrows) ERREXIT1(c, JERR_OUT_OF_MEMORY, 8);
		need = row * a->numrows;
		if (need == 0) need = 1;
		a->len = need >= MMGATE_HUGE_PAGE ? need + MMGATE_HUGE_PAGE : need;
		m = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED) ERREXIT1(c, JERR_OUT_OF_MEMORY, 9);
		a->mem = m;
		if (need >= MMGATE_HUGE_PAGE) {
			uintptr_t r = (uintptr_t)m % MMGATE_HUGE_PAGE;
			if (r != 0) off = MMGATE_HUGE_PAGE - r;
			madvise((char*)m + off, need / MMGATE_HUGE_PAGE * MMGATE_HUGE_PAGE, MADV_HUGEPAGE);
		}
		a->rows = (JBLOCKARRAY)malloc(((size_t)a->numrows + 1) * sizeof(JBLOCKROW));
		if (a->rows == NULL) ERREXIT1(c, JERR_OUT_OF_MEMORY, 10);
		for (i = 0; i < a->numrows; i++) a->rows[i] = (JBLOCKROW)((char*)m + off + (size_t)i * row);
	}
	s->realize(c); // libjpeg's sample arrays, if any
}

static JBLOCKARRAY mmgate_coefs_access(j_common_ptr c, jvirt_barray_ptr ptr,
		JDIMENSION start_row, JDIMENSION num_rows, boolean writable) {
	mmgate_coef_array* a = (mmgate_coef_array*)(void*)ptr;
	JDIMENSION end_row = start_row + num_rows;
	if (end_row > a->numrows || num_rows > a->maxaccess || a->rows == NULL)
		ERREXIT(c, JERR_BAD_VIRTUAL_ACCESS);
	if (a->first_undef_row < end_row) {
		if (a->first_undef_row < start_row && writable) ERREXIT(c, JERR_BAD_VIRTUAL_ACCESS);
		if (writable) a->first_undef_row = end_row;
		else if (!a->pre_zero) ERREXIT(c, JERR_BAD_VIRTUAL_ACCESS);
	}
	return a->rows + start_row;
}

static void mmgate_coefs_free_pool(j_common_ptr c, int pool_id) {
	mmgate_coefs* s = mmgate_coefs_of(c);
	if (pool_id == JPOOL_IMAGE) mmgate_coefs_release(s);
	s->free_pool(c, pool_id);
}

static void mmgate_coefs_self_destruct(j_common_ptr c) {
	mmgate_coefs* s = mmgate_coefs_of(c);
	mmgate_coefs_release(s);
	s->self_destruct(c);
}

static void mmgate_coefs_install(j_common_ptr c, mmgate_coefs* s) {
	struct jpeg_memory_mgr* m = c->mem;
	s->arrays = NULL;
	s->realize = m->realize_virt_arrays;
	s->free_pool = m->free_pool;
	s->self_destruct = m->self_destruct;
	m->request_virt_barray = mmgate_coefs_request;
	m->realize_virt_arrays = mmgate_coefs_realize;
	m->access_virt_barray = mmgate_coefs_access;
	m->free_pool = mmgate_coefs_free_pool;
	m->self_destruct = mmgate_coefs_self_destruct;
}

#endif
