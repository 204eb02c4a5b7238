package hooks

import (
	"testing"

	"github.com/actctl/actctl/model"
)

func TestObserve(t *testing.T) {
	b, err := New(map[string]model.Hook{"p": {On: "task:done", Prompt: &model.HookPrompt{Agent: "x", Text: "t"}}}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	o := b.Observe(2)
	b.Publish(Event{Name: "idle", Agent: "a"})
	if ob := <-o.C; ob.Event.Name != "idle" || ob.Hook != nil {
		t.Fatalf("event %+v", ob)
	}
	b.Publish(Event{Name: "task:done", Agent: "a"})
	b.Wait()
	got := map[string]bool{}
	for range 2 {
		ob := <-o.C
		if ob.Hook != nil {
			got["hook "+ob.Hook.Hook] = ob.Hook.Err != nil // no Prompter: it failed
		} else {
			got[ob.Event.Name] = true
		}
	}
	if !got["task:done"] || !got["hook p"] {
		t.Fatalf("observed %v", got)
	}
	// A full observer drops, counted; the publisher never waits.
	for range 5 {
		b.Publish(Event{Name: "idle"})
	}
	if o.Dropped() != 3 || len(o.C) != 2 {
		t.Fatalf("dropped %d, queued %d", o.Dropped(), len(o.C))
	}
	o.Close()
	<-o.C
	<-o.C
	b.Publish(Event{Name: "idle"})
	if len(o.C) != 0 {
		t.Fatal("a closed observer still receives")
	}
}
