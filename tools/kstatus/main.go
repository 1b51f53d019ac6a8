// Command kstatus runs kstatus (sigs.k8s.io/cli-utils/pkg/kstatus/status.Compute, the rules on
// which Flux's health checks, kpt and cli-utils' status poller decide whether an object is
// reconciled) over objects given as JSON, so that Steward's tests can check their custom resources
// against those rules.
//
// Stdin: a JSON array of Kubernetes objects (each with apiVersion, kind and metadata.name).
// Stdout: a JSON array, one entry per object in the same order:
//
//	{"apiVersion","kind","namespace","name","status","message"}
//
// where status is kstatus's Status (InProgress, Failed, Current, Terminating, NotFound, Unknown).
// An object whose fields have the wrong type for kstatus (status.observedGeneration a string, say)
// is reported as Unknown with the error as its message, as cli-utils' status poller does. Input
// that is not such an array, or an object without apiVersion, kind or metadata.name, is refused: a
// message on stderr naming the object's index, and exit status 1.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"sigs.k8s.io/cli-utils/pkg/kstatus/status"
)

// verdict is one output entry.
type verdict struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Namespace  string `json:"namespace"`
	Name       string `json:"name"`
	Status     string `json:"status"`
	Message    string `json:"message"`
}

func main() {
	if len(os.Args) > 1 {
		fmt.Fprintln(os.Stderr, "usage: kstatus < objects.json   (a JSON array of Kubernetes objects on stdin; no arguments)")
		os.Exit(2)
	}
	verdicts, err := run(os.Stdin)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: %v\n", err)
		os.Exit(1)
	}
	out := bufio.NewWriter(os.Stdout)
	enc := json.NewEncoder(out)
	if err := enc.Encode(verdicts); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: writing the result: %v\n", err)
		os.Exit(1)
	}
	if err := out.Flush(); err != nil {
		fmt.Fprintf(os.Stderr, "kstatus: writing the result: %v\n", err)
		os.Exit(1)
	}
}

func run(in io.Reader) ([]verdict, error) {
	data, err := io.ReadAll(in)
	if err != nil {
		return nil, fmt.Errorf("reading stdin: %w", err)
	}
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, fmt.Errorf("stdin is not a JSON array of objects: %w", err)
	}
	if raw == nil {
		return nil, fmt.Errorf("stdin is not a JSON array of objects: got null")
	}
	verdicts := make([]verdict, 0, len(raw))
	for i, item := range raw {
		u, err := decode(item)
		if err != nil {
			return nil, fmt.Errorf("object %d: %w", i, err)
		}
		v := verdict{
			APIVersion: u.GetAPIVersion(),
			Kind:       u.GetKind(),
			Namespace:  u.GetNamespace(),
			Name:       u.GetName(),
		}
		res, err := status.Compute(u)
		if err != nil {
			v.Status, v.Message = string(status.UnknownStatus), err.Error()
		} else {
			v.Status, v.Message = string(res.Status), res.Message
		}
		verdicts = append(verdicts, v)
	}
	return verdicts, nil
}

// decode turns one array element into an unstructured object. apimachinery's JSON decoder keeps
// integers as int64, which kstatus' NestedInt64 look-ups of generation and observedGeneration need
// (encoding/json would give float64, and every such look-up would fail).
func decode(item json.RawMessage) (*unstructured.Unstructured, error) {
	var obj map[string]interface{}
	if err := utiljson.Unmarshal(item, &obj); err != nil {
		return nil, fmt.Errorf("not a JSON object: %w", err)
	}
	if obj == nil {
		return nil, fmt.Errorf("not a JSON object: got null")
	}
	for _, field := range []string{"apiVersion", "kind"} {
		if s, ok := obj[field].(string); !ok || s == "" {
			return nil, fmt.Errorf("%s is missing or not a non-empty string", field)
		}
	}
	name, found, err := unstructured.NestedString(obj, "metadata", "name")
	if err != nil || !found || name == "" {
		return nil, fmt.Errorf("metadata.name is missing or not a non-empty string (kind %v)",
			obj["kind"])
	}
	if _, _, err := unstructured.NestedString(obj, "metadata", "namespace"); err != nil {
		return nil, fmt.Errorf("metadata.namespace is not a string: %w", err)
	}
	return &unstructured.Unstructured{Object: obj}, nil
}
