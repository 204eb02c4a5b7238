package acptestagent

import (
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// The ops a session plugin's tests use (docs/plugins.md): a main agent
// that shows what reached it, a translator with a fixed dictionary, and
// an agent that leaks a token.
//
//	echo ...          says the prompt as it arrived: its blocks' texts
//	                  joined by " | " (a resource block as
//	                  "resource:<text>")
//	translate LANG .. says the words after LANG translated to LANG ("en"
//	                  or "zh") by a fixed dictionary (Dictionary), others
//	                  as they are, joined by single spaces
//	Translate into LANG. ...\n\nTEXT
//	                  translate's answer to a translator's prompt as a
//	                  person writes it (examples/plugins): LANG
//	                  "English" or "Chinese", TEXT after the first blank
//	                  line
//	upper ...         says the words after it upper-cased
//	leak              says "leaked tok-424242"
//
// A prompt whose first word is no op, and which has several text blocks
// (a prefix plugin's block before the user's), is handled by the op its
// last text block starts with.

// Dictionary is translate's: English to Chinese (and back).
var Dictionary = map[string]string{"hello": "你好", "world": "世界", "commit": "提交"}

func init() {
	register("echo", func(t *Turn) (acp.StopReason, error) {
		var parts []string
		for _, b := range t.Req.Prompt {
			switch {
			case b.Text != nil:
				parts = append(parts, b.Text.Text)
			case b.Resource != nil && b.Resource.Resource.TextResourceContents != nil:
				parts = append(parts, "resource:"+b.Resource.Resource.TextResourceContents.Text)
			}
		}
		t.Say(strings.Join(parts, " | "))
		return acp.StopReasonEndTurn, nil
	})
	register("translate", func(t *Turn) (acp.StopReason, error) {
		if len(t.Words) < 2 {
			t.Say("translate: want LANG")
			return acp.StopReasonEndTurn, nil
		}
		t.Say(translate(t.Words[1], t.Words[2:]))
		return acp.StopReasonEndTurn, nil
	})
	register("Translate", func(t *Turn) (acp.StopReason, error) {
		lang := map[string]string{"English.": "en", "Chinese.": "zh"}[strings.Join(t.Words[2:3], "")]
		_, text, _ := strings.Cut(promptText(t.Req), "\n\n")
		t.Say(translate(lang, strings.Fields(text)))
		return acp.StopReasonEndTurn, nil
	})
	register("upper", func(t *Turn) (acp.StopReason, error) {
		t.Say(strings.ToUpper(strings.Join(t.Words[1:], " ")))
		return acp.StopReasonEndTurn, nil
	})
	register("leak", func(t *Turn) (acp.StopReason, error) {
		t.Say("leaked tok-424242")
		return acp.StopReasonEndTurn, nil
	})
}

// translate is words translated to lang by Dictionary.
func translate(lang string, words []string) string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = w
		for en, zh := range Dictionary {
			switch {
			case lang == "zh" && w == en:
				out[i] = zh
			case lang == "en" && w == zh:
				out[i] = en
			}
		}
	}
	return strings.Join(out, " ")
}

// lastBlockOp is the first word of the prompt's last text block when
// the prompt has several text blocks ("" otherwise).
func lastBlockOp(p acp.PromptRequest) string {
	var last string
	n := 0
	for _, b := range p.Prompt {
		if b.Text != nil {
			last, n = b.Text.Text, n+1
		}
	}
	if f := strings.Fields(last); n > 1 && len(f) > 0 {
		return f[0]
	}
	return ""
}
