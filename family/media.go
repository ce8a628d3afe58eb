package family

import (
	"encoding/json"

	"github.com/mmgate/mmgate/vision/hfconfig"
)

// DeclaresMedia reports whether a config.json describes a model that takes
// media: a vision or audio tower configuration, or a media token id — the
// placeholder and boundary ids of transformers' multimodal configurations,
// at the top level or in text_config / thinker_config where some
// checkpoints write them. JSON that is not an object declares nothing.
func DeclaresMedia(configJSON []byte) bool {
	scopes, err := hfconfig.TokenScopes(configJSON)
	if err != nil {
		return false
	}
	if present(scopes[0]["vision_config"]) || present(scopes[0]["audio_config"]) {
		return true
	}
	keys := [...]string{
		"image_token_id", "image_token_index", "video_token_id", "video_token_index",
		"audio_token_id", "audio_token_index", "vision_start_token_id", "boi_token_index",
		"image_start_token_id", "video_start_token_id",
	}
	for _, sc := range scopes {
		for _, k := range keys {
			if present(sc[k]) {
				return true
			}
		}
	}
	return false
}

// present reports whether a JSON value is there and not null.
func present(raw json.RawMessage) bool { return len(raw) > 0 && string(raw) != "null" }
