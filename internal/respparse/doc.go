// Package respparse splits a model's streamed output text into what the
// OpenAI API returns separately: content, reasoning (text between <think>
// and </think>, returned as reasoning_content, as vLLM does) and tool calls
// (Qwen's and Hermes' `<tool_call>{"name": ..., "arguments": {...}}</tool_call>`
// blocks, returned as tool_calls).
//
// A Parser is fed text deltas as they are decoded and returns deltas that are
// final: text that could still be the start of a tag is held back, and a tool
// call is released once its block is closed and its JSON is valid. Malformed
// JSON inside a block is never an error: the block is passed through as
// content. The formats are data (Format); the model's family gives the
// tags (family.OutputFormat).
//
// A Parser is for one choice of one request and is not safe for concurrent
// use.
package respparse
