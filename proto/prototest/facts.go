package prototest

// ImageFacts are the reference values behind the two-image goldens.
type ImageFacts struct {
	OriginalText string     `json:"original_text"`
	InputIDs     []uint32   `json:"input_ids"`
	Placeholders [][]uint32 `json:"placeholders"`
	PixelShape   []uint32   `json:"pixel_shape"`
	PixelSHA256  string     `json:"pixel_sha256"`
	Grids        [][]int64  `json:"grids"`
	Patches      []int64    `json:"patches"`
	MmHashes     []string   `json:"mm_hashes"`
	ImageSHA256  []string   `json:"image_sha256"`
	StopTokenIDs []uint32   `json:"stop_token_ids"`
}

// VideoFacts are the reference values behind the video golden.
type VideoFacts struct {
	OriginalText string     `json:"original_text"`
	InputIDs     []uint32   `json:"input_ids"`
	Placeholder  []uint32   `json:"placeholder"`
	PadRuns      [][]uint32 `json:"pad_runs"`
	Grid         []int64    `json:"grid"`
	PixelShape   []uint32   `json:"pixel_shape"`
	Shm          struct {
		Name    string `json:"name"`
		Nbytes  uint64 `json:"nbytes"`
		OwnerID string `json:"owner_id"`
	} `json:"shm"`
	MmHash string `json:"mm_hash"`
	Clip   string `json:"clip"`
}

// StreamFacts describe a golden response stream: per sequence its token
// ids and how the engine split them into steps.
type StreamFacts struct {
	PromptTokens uint32 `json:"prompt_tokens"`
	CachedTokens uint32 `json:"cached_tokens"`
	Sequences    []struct {
		Index uint32   `json:"index"`
		IDs   []uint32 `json:"ids"`
		Steps []int    `json:"steps"`
	} `json:"sequences"`
}
