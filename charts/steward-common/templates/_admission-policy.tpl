{{/*
The ValidatingAdmissionPolicy that refuses, at admission, an object whose ProviderProfile does not
allow its namespace (the profile's spec.namespaces and spec.namespaceSelector, read against the
request's namespaceObject): every ProviderProfile is a param (paramRef selects them all) and only
the one the object names can refuse it. The controllers check the same rule (defence in depth:
ProfileNotAllowedInNamespace) for objects admitted before a profile changed, or while this policy
is not installed. Only a CREATE, or an UPDATE that changes which profile is named, is judged: the
controller's own writes (finalizers, annotations) to an object whose profile has since stopped
allowing its namespace must still go through, or its deletion could never finish.
Called with a dict:
  root            the controller chart's root context (`.`)
  group           the API group of the kind, e.g. database.steward.dev
  resource        its plural, e.g. databaseinstances
  defaultProfile  the profile an object that names none uses ("" when it must name one)
Kubernetes >= 1.30 (admissionregistration.k8s.io/v1).
*/}}
{{- define "steward-common.profileNamespacePolicy" -}}
{{- $root := .root }}
{{- $name := printf "%s-profile-namespaces" (include "steward-common.clusterName" $root) | trunc 63 | trimSuffix "-" }}
{{- $profile := printf "has(%%s.spec.providerProfileRef) ? %%s.spec.providerProfileRef.name : '%s'" (.defaultProfile | default "") }}
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata:
  name: {{ $name }}
  labels:
    {{- include "steward-common.labels" $root | nindent 4 }}
spec:
  failurePolicy: Fail
  paramKind:
    apiVersion: steward.dev/v1alpha1
    kind: ProviderProfile
  matchConstraints:
    resourceRules:
      - apiGroups: [{{ .group }}]
        apiVersions: ['*']
        operations: [CREATE, UPDATE]
        resources: [{{ .resource }}]
  matchConditions:
    - name: profile-named-or-changed
      expression: >-
        request.operation == 'CREATE' ||
        ({{ printf $profile "object" "object" }}) != ({{ printf $profile "oldObject" "oldObject" }})
  variables:
    - name: profile
      expression: >-
        {{ printf $profile "object" "object" }}
    - name: labels
      expression: >-
        has(namespaceObject.metadata.labels) ? namespaceObject.metadata.labels : {}
    - name: listed
      expression: >-
        has(params.spec.namespaces) && namespaceObject.metadata.name in params.spec.namespaces
    - name: selected
      expression: >-
        has(params.spec.namespaceSelector) &&
        (!has(params.spec.namespaceSelector.matchLabels) ||
          params.spec.namespaceSelector.matchLabels.all(k,
            k in variables.labels && variables.labels[k] == params.spec.namespaceSelector.matchLabels[k])) &&
        (!has(params.spec.namespaceSelector.matchExpressions) ||
          params.spec.namespaceSelector.matchExpressions.all(e,
            e.operator == 'In' ? (e.key in variables.labels && has(e.values) && variables.labels[e.key] in e.values) :
            e.operator == 'NotIn' ? !(e.key in variables.labels && has(e.values) && variables.labels[e.key] in e.values) :
            e.operator == 'Exists' ? e.key in variables.labels :
            e.operator == 'DoesNotExist' ? !(e.key in variables.labels) :
            false))
  validations:
    - expression: >-
        variables.profile != params.metadata.name || variables.listed || variables.selected
      messageExpression: >-
        'ProviderProfile ' + params.metadata.name + ' may not be used from namespace ' +
        namespaceObject.metadata.name + ' (ProfileNotAllowedInNamespace): it neither lists the namespace in spec.namespaces nor selects it with spec.namespaceSelector. Ask the platform team to allow the namespace in the profile, or reference a profile that allows it'
      reason: Forbidden
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicyBinding
metadata:
  name: {{ $name }}
  labels:
    {{- include "steward-common.labels" $root | nindent 4 }}
spec:
  policyName: {{ $name }}
  validationActions: [Deny]
  paramRef:
    selector: {}
    parameterNotFoundAction: Allow
{{- end }}
