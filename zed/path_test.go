package zed

import "testing"

func TestZedSettingsPathFor(t *testing.T) {
	cases := []struct {
		goos string
		env  map[string]string
		want string
		err  bool
	}{
		{"windows", map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming`, "HOME": "/h"}, `C:\Users\me\AppData\Roaming\Zed\settings.json`, false},
		{"windows", map[string]string{"APPDATA": `C:\Users\me\AppData\Roaming\`}, `C:\Users\me\AppData\Roaming\Zed\settings.json`, false},
		{"windows", map[string]string{"HOME": "/h", "XDG_CONFIG_HOME": "/x"}, "", true},
		{"linux", map[string]string{"HOME": "/home/me"}, "/home/me/.config/zed/settings.json", false},
		{"linux", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "/xdg/"}, "/xdg/zed/settings.json", false},
		{"linux", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "rel"}, "/home/me/.config/zed/settings.json", false},
		{"linux", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "/xdg", "FLATPAK_XDG_CONFIG_HOME": "/fp"}, "/fp/zed/settings.json", false},
		{"freebsd", map[string]string{"HOME": "/home/me", "XDG_CONFIG_HOME": "/xdg"}, "/xdg/zed/settings.json", false},
		{"darwin", map[string]string{"HOME": "/Users/me", "XDG_CONFIG_HOME": "/xdg", "APPDATA": `C:\x`}, "/Users/me/.config/zed/settings.json", false},
		{"darwin", map[string]string{}, "", true},
	}
	for _, c := range cases {
		got, err := settingsPathFor(c.goos, func(k string) string { return c.env[k] })
		if (err != nil) != c.err || got != c.want {
			t.Errorf("%s %v: %q, %v; want %q (error %v)", c.goos, c.env, got, err, c.want, c.err)
		}
	}
}
