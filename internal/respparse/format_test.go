package respparse

// qwen is the format of Qwen2, Qwen2.5, Qwen3 and their VL models, the
// format these tests parse.
var qwen = Format{ToolStart: "<tool_call>", ToolEnd: "</tool_call>", ThinkStart: "<think>", ThinkEnd: "</think>"}
