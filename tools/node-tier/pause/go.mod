// The node tier's pod sandbox ("pause") program: stdlib only, built by tools/node-tier/images/build.sh.
module steward.dev/tools/node-tier/pause

go 1.22
