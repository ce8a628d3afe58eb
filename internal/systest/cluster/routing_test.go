package cluster

import (
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/mmgate/mmgate/internal/testutil/procs"
	"github.com/mmgate/mmgate/internal/tools/synth"
)

// jpegData is a w×h synthetic JPEG (seed varies it) as a data: URL.
func jpegData(t *testing.T, w, h, seed int) string {
	t.Helper()
	b, err := synth.JPEG(w, h, seed)
	if err != nil {
		t.Fatal(err)
	}
	return "data:image/jpeg;base64," + base64.StdEncoding.EncodeToString(b)
}

// With cache_aware, every follow-up turn of an image conversation goes to
// the worker that served its first turn (whose cache holds it), and new
// conversations spread over the workers.
func TestCacheAwareConversations(t *testing.T) {
	shm := procs.ShmDir(t, "mmgate-cluster-")
	w1, _ := procs.Worker(t, binary, shm, "--model", modelDir)
	w2, _ := procs.Worker(t, binary, shm, "--model", modelDir)
	url, p := gateway(t, shm, "--policy", "cache_aware", "--worker", w1, "--worker", w2)
	procs.WaitFor(t, p, func() bool { return procs.Ready(url + "/health/ready") }, "gateway ready")
	g := newGW(url, p)
	const conversations, turns = 8, 3
	perWorker := map[string]int{}
	for n := range conversations {
		history := []openai.ChatCompletionMessageParamUnion{openai.UserMessage([]openai.ChatCompletionContentPartUnionParam{
			openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: jpegData(t, 512, 512, n+1)}),
			openai.TextContentPart("What is in this picture?"),
		})}
		var first string
		for k := range turns {
			rid := g.rid(fmt.Sprintf("conv%d-turn%d", n, k))
			resp, err := g.chat(t, rid, openai.ChatCompletionNewParams{Model: model, Messages: history, MaxTokens: openai.Int(16)})
			if err != nil {
				t.Fatalf("%s: %v", rid, err)
			}
			w := g.servedBy(t, rid)
			cached := resp.Usage.PromptTokensDetails.CachedTokens
			t.Logf("%s: %s, %d of %d prompt tokens cached", rid, w, cached, resp.Usage.PromptTokens)
			if k == 0 {
				first = w
				perWorker[w]++
				if cached != 0 {
					t.Errorf("%s: a new conversation's image was cached (%d tokens)", rid, cached)
				}
			} else {
				if w != first {
					t.Fatalf("%s went to %s; the conversation's first turn went to %s", rid, w, first)
				}
				if cached == 0 {
					t.Errorf("%s: the worker holding the conversation reports nothing cached", rid)
				}
			}
			history = append(history, openai.AssistantMessage(resp.Choices[0].Message.Content),
				openai.UserMessage(fmt.Sprintf("And what else? (%d)", k)))
		}
	}
	if len(perWorker) != 2 {
		t.Fatalf("conversations per worker %v: both workers should get some", perWorker)
	}
}
