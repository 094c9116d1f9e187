#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# tests/lib/include_graph.sh [--check] - which headers each layer includes.
#
# Prints one line per pair of folders, `FROM -> TO: header...`, for every
# quoted #include in FROM's sources and headers (attach/*, agent/*) that
# names a header of another folder.  Each attach/ folder's entry is the one
# header directly in its include/ (docs/architecture.md, "Layers"), which
# declares what the layer offers; the layers rank
#   base < proc < hotspot, openj9, deploy, vmstructs < run < attaching < cli
#   lookup (the lookup library: only agent/format and common/ below it) < cli
# and agent/ includes nothing of attach/.  common/ is the bottom both sides
# share (all its headers are its entry) and includes nothing of jsym's.
#
# With --check, also lists what breaks the rules and exits 1 if anything
# does: common/ including anything of jsym's, another attach/ folder's
# header that is not its entry, an include that goes up (or sideways) a
# layer, agent/ including attach/, a path with "../", an entry that
# includes an internal header of its own folder or is only includes (a
# forwarder: the entry declares what the layer offers), or two headers of
# the tree with the same file name.  Run by `make layers` and by
# tests/integration/03-layers.sh.
set -u
cd "$(dirname "$0")/../.."
check=0
[ "${1:-}" = --check ] && check=1

declare -A rank=([attach/base]=0 [attach/proc]=1 [attach/hotspot]=2 [attach/openj9]=2
	[attach/deploy]=2 [attach/vmstructs]=2 [attach/lookup]=2 [attach/run]=3 [attach/attaching]=4
	[attach/cli]=5)
declare -A owner entry
folders=$(git ls-files -co --exclude-standard 'common/*.[ch]' 'attach/*.[ch]' 'agent/*.[ch]' | grep -v '/include/' |
	xargs -n1 dirname | sort -u)
for f in $folders; do
	for h in $(git ls-files -co --exclude-standard "$f/*.h" | grep -v '/include/'); do
		[ "$(dirname "$h")" = "$f" ] && owner[$(basename "$h")]=$f
	done
	# the entry is the header directly in include/ (attach/lookup's
	# include/jsym/lookup.h is the library's public header, for programs
	# outside jsym)
	for h in $(git ls-files -co --exclude-standard "$f/include/*.h" 2>/dev/null); do
		[ "$(dirname "$h")" = "$f/include" ] || continue
		entry[$f]=$(basename "$h")
		owner[$(basename "$h")]=$f
	done
done
# attach/lookup's public header is included as <jsym/lookup.h> or "jsym/lookup.h"
owner[jsym/lookup.h]=attach/lookup

bad=()
declare -A edges
for f in $folders; do
	# the folder's sources and headers, and its entry in include/
	for src in $(git ls-files -co --exclude-standard "$f/*.c" "$f/*.h"); do
		case $(dirname "$src") in "$f") ;; "$f/include") ;; *) continue ;; esac
		is_entry=0
		[ "$(dirname "$src")" = "$f/include" ] && is_entry=1
		code=$(sed -e 's|/\*.*\*/||g' -e '/^[[:space:]]*\/\?\*/d' -e '/^[[:space:]]*$/d' "$src" |
			grep -v '^#[[:space:]]*include')
		[ $is_entry = 1 ] && [ -z "$code" ] &&
			bad+=("$src: an entry that only includes other headers (a forwarder): declare what the layer offers in it")
		while read -r h; do
			case $h in ../*) bad+=("$src: \"$h\": a path out of its folder"); continue ;; esac
			if [ -e "$f/$h" ]; then          # the folder's own
				[ $is_entry = 1 ] &&
					bad+=("$src: $h: an entry includes none of its folder's internal headers")
				continue
			fi
			to=${owner[$h]:-}
			[ -n "$to" ] || continue              # generated, or not jsym's
			[ "$to" = "$f" ] && continue
			edges["$f -> $to"]+=" $h"
			if [ "$f" = common ]; then
				bad+=("$src: $h: common/ is the bottom and includes nothing of jsym's")
			elif [[ $to == attach/* && $f == agent/* ]]; then
				bad+=("$src: $h: the agent includes nothing of attach/")
			elif [[ $to == attach/* ]]; then
				[ "${entry[$to]:-}" = "$h" ] ||
					bad+=("$src: $h is internal to $to (its entry: ${entry[$to]:-none})")
				[ "${rank[$to]}" -lt "${rank[$f]}" ] ||
					bad+=("$src: $h: $to is not below $f")
			fi
		done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$src")
	done
done

# no two headers of the tree share a file name (an include names one file)
while read -r n; do
	bad+=("two headers named $n: $(git ls-files -co --exclude-standard '*.h' |
		grep -E "(^|/)$n\$" | grep -vE '^(glibc|musl)-build' | tr '\n' ' ')")
done < <(git ls-files -co --exclude-standard '*.h' | grep -vE '^(glibc|musl)-build' |
	xargs -n1 basename | sort | uniq -d)

for f in $folders; do
	[ -n "${entry[$f]:-}" ] && printf '%-18s entry %s\n' "$f" "${entry[$f]}"
done
for k in "${!edges[@]}"; do
	printf '%s:%s\n' "$k" "$(tr ' ' '\n' <<<"${edges[$k]}" | sort -u | tr '\n' ' ' | sed 's/ $//')"
done | sort
if [ $check -eq 1 ]; then
	if [ ${#bad[@]} -gt 0 ]; then
		printf 'layer rule broken: %s\n' "${bad[@]}"
		exit 1
	fi
	echo "layers: every include names a folder's own header or the entry of a layer below"
fi
