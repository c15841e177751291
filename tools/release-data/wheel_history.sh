# Prints each change of setup.py get_wheel_url() (CUDA pinning and spelling, file name) across
# the tags of a repository: tools/release-data/README.md, "Prebuilt GitHub wheels".
# usage: wheel_history.sh GITDIR TAGPATTERN
G=$1
prev=""
for t in $(git --git-dir=$G tag | grep -E "$2" | sort -V); do
  body=$(git --git-dir=$G show $t:setup.py 2>/dev/null | sed -n '/^def get_wheel_url/,/return wheel_url/p' | grep -v '^\s*#' | grep -E 'cuda_version|torch_version =|wheel_filename =|parse\("|major ==|elif|else|_version_raw\.' | tr -s ' ')
  h=$(echo "$body" | md5sum | cut -c1-8)
  if [ "$h" != "$prev" ]; then echo "=== $t ($h)"; echo "$body"; prev=$h; fi
done
