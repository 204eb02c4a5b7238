package zed

import (
	"fmt"
	"strings"
)

// settingsPathFor is where Zed reads its user settings.json on goos, env
// looking up environment variables. It follows Zed's own config_dir()
// (zed-industries/zed crates/paths/src/paths.rs; docs/formats.md "Zed"):
//
//   - windows: %APPDATA%\Zed (the roaming application data directory);
//   - linux, freebsd: $FLATPAK_XDG_CONFIG_HOME/zed inside a Flatpak, else
//     $XDG_CONFIG_HOME/zed (only when absolute, as the XDG rules say),
//     else $HOME/.config/zed;
//   - darwin and others: $HOME/.config/zed.
//
// It is pure: the path is built with goos's separator, whatever the OS
// running it; SettingsPath calls it for the running OS.
func settingsPathFor(goos string, env func(string) string) (string, error) {
	switch goos {
	case "windows":
		appData := env("APPDATA")
		if appData == "" {
			return "", fmt.Errorf("zed settings: %%APPDATA%% is not set")
		}
		return strings.TrimRight(appData, `\/`) + `\Zed\settings.json`, nil
	case "linux", "freebsd":
		if d := env("FLATPAK_XDG_CONFIG_HOME"); d != "" {
			return joinSlash(d, "zed", "settings.json"), nil
		}
		if d := env("XDG_CONFIG_HOME"); strings.HasPrefix(d, "/") {
			return joinSlash(d, "zed", "settings.json"), nil
		}
	}
	home := env("HOME")
	if home == "" {
		return "", fmt.Errorf("zed settings: $HOME is not set")
	}
	return joinSlash(home, ".config", "zed", "settings.json"), nil
}

func joinSlash(dir string, elem ...string) string {
	return strings.TrimRight(dir, "/") + "/" + strings.Join(elem, "/")
}
