package discovery

import (
	"cmp"
	"slices"
)

// Changes is what turns one reported worker set into the next.
type Changes struct {
	Remove []Worker // workers as they were reported, sorted by URL
	Update []Worker // same URL and UID, other fields changed; sorted by URL
	Add    []Worker // new URLs or new UIDs on known URLs; sorted by URL
}

// Empty reports whether nothing changes.
func (c Changes) Empty() bool { return len(c.Remove)+len(c.Update)+len(c.Add) == 0 }

// Diff computes the changes from current to desired, both keyed by URL. A
// URL whose pod UID differs is a removal of the current worker and an
// addition of the desired one.
func Diff(current, desired map[string]Worker) Changes {
	var c Changes
	for url, cur := range current {
		want, ok := desired[url]
		switch {
		case !ok || want.PodUID != cur.PodUID:
			c.Remove = append(c.Remove, cur)
		case want != cur:
			c.Update = append(c.Update, want)
		}
	}
	for url, want := range desired {
		if cur, ok := current[url]; !ok || cur.PodUID != want.PodUID {
			c.Add = append(c.Add, want)
		}
	}
	byURL := func(a, b Worker) int { return cmp.Compare(a.URL, b.URL) }
	slices.SortFunc(c.Remove, byURL)
	slices.SortFunc(c.Update, byURL)
	slices.SortFunc(c.Add, byURL)
	return c
}

// Desired picks the desired set out of classified pods: every ready pod's
// worker, one per URL. When two ready pods claim one URL (which a correct
// cluster never shows for long), the one already reported keeps it (so a
// pass never flips between them), else the first by namespace, name and
// UID; the losers are returned so the caller can say so.
func Desired(pods []PodState, current map[string]Worker) (desired map[string]Worker, losers []Worker) {
	ready := make([]Worker, 0, len(pods))
	for _, p := range pods {
		if p.State == StateReady {
			ready = append(ready, p.Worker)
		}
	}
	slices.SortFunc(ready, func(a, b Worker) int {
		return cmp.Or(cmp.Compare(a.URL, b.URL), cmp.Compare(a.Namespace, b.Namespace),
			cmp.Compare(a.PodName, b.PodName), cmp.Compare(a.PodUID, b.PodUID))
	})
	desired = make(map[string]Worker, len(ready))
	for _, w := range ready {
		held, taken := desired[w.URL]
		switch {
		case !taken:
			desired[w.URL] = w
		case current[w.URL].PodUID == w.PodUID && held.PodUID != w.PodUID:
			desired[w.URL] = w
			losers = append(losers, held)
		default:
			losers = append(losers, w)
		}
	}
	return desired, losers
}
