// Package chart renders gpuadmit's Helm chart the way Helm does, closely enough to test it without a helm
// binary: Go's text/template with sprig's functions, Helm's own additions (include, tpl, required, toYaml,
// fromYaml, toJson), Helm's top-level objects (.Values, .Release, .Chart, .Template, .Capabilities) and
// Helm's value coalescing (user values merged over values.yaml, maps deeply).
package chart

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig"
	"gopkg.in/yaml.v3"
)

// Release is the part of Helm's .Release that charts read.
type Release struct {
	Name, Namespace, Service string
	IsInstall, IsUpgrade     bool
	Revision                 int
}

// Rendered is one rendered chart: manifest text by template path, and NOTES.txt.
type Rendered struct {
	Files map[string]string
	Notes string
}

// Map is a decoded YAML mapping.
type Map = map[string]interface{}

// LoadYAML reads one YAML document into a Map (an empty file gives an empty Map).
func LoadYAML(path string) (Map, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := Map{}
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return m, nil
}

// Coalesce merges src over dst as Helm does for user values: maps merge key by key, anything else replaces,
// and a nil value deletes the key.
func Coalesce(dst, src Map) Map {
	out := Map{}
	for k, v := range dst {
		out[k] = v
	}
	for k, v := range src {
		if v == nil {
			delete(out, k)
			continue
		}
		sm, sok := v.(Map)
		dm, dok := out[k].(Map)
		if sok && dok {
			out[k] = Coalesce(dm, sm)
		} else {
			out[k] = v
		}
	}
	return out
}

// toYAML is Helm's toYaml: block style, two-space indent, no trailing newline.
func toYAML(v interface{}) string {
	var buf bytes.Buffer
	enc := yaml.NewEncoder(&buf)
	enc.SetIndent(2)
	if err := enc.Encode(v); err != nil {
		return ""
	}
	return strings.TrimSuffix(buf.String(), "\n")
}

func fromYAML(s string) Map {
	m := Map{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		m["Error"] = err.Error()
	}
	return m
}

func toJSON(v interface{}) string {
	data, err := json.Marshal(v)
	if err != nil {
		return ""
	}
	return string(data)
}

func required(msg string, v interface{}) (interface{}, error) {
	if v == nil {
		return nil, errors.New(msg)
	}
	if s, ok := v.(string); ok && s == "" {
		return nil, errors.New(msg)
	}
	return v, nil
}

// funcMap is sprig plus Helm's functions; include and tpl close over the template set being rendered.
func funcMap(t **template.Template) template.FuncMap {
	f := sprig.TxtFuncMap()
	f["toYaml"] = toYAML
	f["fromYaml"] = fromYAML
	f["toJson"] = toJSON
	f["required"] = required
	f["include"] = func(name string, data interface{}) (string, error) {
		var buf bytes.Buffer
		err := (*t).ExecuteTemplate(&buf, name, data)
		return buf.String(), err
	}
	f["tpl"] = func(text string, data interface{}) (string, error) {
		c, err := (*t).Clone()
		if err != nil {
			return "", err
		}
		if _, err := c.New("tpl").Parse(text); err != nil {
			return "", err
		}
		var buf bytes.Buffer
		err = c.ExecuteTemplate(&buf, "tpl", data)
		return buf.String(), err
	}
	return f
}

// Render renders the chart in dir with user values over its values.yaml.
func Render(dir string, rel Release, user Map) (*Rendered, error) {
	chartMeta, err := LoadYAML(filepath.Join(dir, "Chart.yaml"))
	if err != nil {
		return nil, err
	}
	defaults, err := LoadYAML(filepath.Join(dir, "values.yaml"))
	if err != nil {
		return nil, err
	}
	name, _ := chartMeta["name"].(string)
	files, err := filepath.Glob(filepath.Join(dir, "templates", "*"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var t *template.Template
	t = template.New(name).Funcs(funcMap(&t)).Option("missingkey=zero")
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		tname := name + "/templates/" + filepath.Base(f)
		if _, err := t.New(tname).Parse(string(data)); err != nil {
			return nil, err
		}
	}
	ctx := map[string]interface{}{
		"Values":  Coalesce(defaults, user),
		"Release": rel,
		"Chart": map[string]interface{}{
			"Name": name, "Version": chartMeta["version"], "AppVersion": chartMeta["appVersion"],
			"Description": chartMeta["description"],
		},
		"Capabilities": map[string]interface{}{
			"KubeVersion": map[string]interface{}{"Version": "v1.29.0", "Major": "1", "Minor": "29"},
		},
	}
	out := &Rendered{Files: map[string]string{}}
	for _, f := range files {
		base := filepath.Base(f)
		if strings.HasPrefix(base, "_") {
			continue
		}
		tname := name + "/templates/" + base
		ctx["Template"] = map[string]interface{}{"Name": tname, "BasePath": name + "/templates"}
		var buf bytes.Buffer
		if err := t.ExecuteTemplate(&buf, tname, ctx); err != nil {
			return nil, err
		}
		// Helm prints missing values as empty, not "<no value>".
		text := strings.ReplaceAll(buf.String(), "<no value>", "")
		if base == "NOTES.txt" {
			out.Notes = text
		} else {
			out.Files[tname] = text
		}
	}
	return out, nil
}

// Manifest is the rendered YAML of every template, each document headed by "# Source:", as `helm template`.
func (r *Rendered) Manifest() string {
	names := make([]string, 0, len(r.Files))
	for n := range r.Files {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		for _, doc := range strings.Split(r.Files[n], "\n---") {
			if strings.TrimSpace(doc) == "" {
				continue
			}
			fmt.Fprintf(&b, "---\n# Source: %s\n%s\n", n, strings.TrimLeft(doc, "\n"))
		}
	}
	return b.String()
}

// Objects decodes every non-empty document of every template.
func (r *Rendered) Objects() ([]Map, error) {
	dec := yaml.NewDecoder(strings.NewReader(r.Manifest()))
	var objs []Map
	for {
		m := Map{}
		err := dec.Decode(&m)
		if err != nil {
			if err.Error() == "EOF" {
				return objs, nil
			}
			return nil, fmt.Errorf("rendered YAML does not parse: %w\n%s", err, r.Manifest())
		}
		if len(m) > 0 {
			objs = append(objs, m)
		}
	}
}
