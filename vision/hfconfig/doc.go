// Package hfconfig reads the JSON files of a Hugging Face model folder that
// the image and video processors need — config.json, preprocessor_config.json,
// processor_config.json, video_preprocessor_config.json,
// tokenizer_config.json — and the field types transformers' processors
// share: booleans and integers that may be absent or null (the class
// default then applies), mean/std lists, size dicts, model_type and the
// tokenizer's extra_special_tokens.
//
// Every error wraps vision.ErrBadOptions and names the file or the field.
// The functions keep no state and are safe for concurrent use.
package hfconfig
