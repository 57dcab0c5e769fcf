#!/bin/sh
# scripts/fuzz.py must report what it is there to find: a stand-in gpuvp that crashes on some inputs,
# hangs on others and refuses the rest without saying where makes it fail and keep those inputs.
set -eu
script=$1
work=$2
rm -rf "$work" && mkdir -p "$work"
cat > "$work/gpuvp" <<'FAKE'
#!/bin/sh
for last; do :; done
case $(cksum < "$last" | cut -c1) in
  1|2) kill -SEGV $$ ;;
  3) sleep 30 ;;
  *) echo "bad input" >&2; exit 2 ;;
esac
FAKE
chmod +x "$work/gpuvp"
if python3 "$script" --gpuvp "$work/gpuvp" --targets config --runs 30 --timeout 1 --keep "$work/kept" > "$work/out.txt" 2>&1; then
  echo "fuzz.py passed a gpuvp that crashes and hangs"; cat "$work/out.txt"; exit 1
fi
grep -q "crash: signal 11" "$work/out.txt" || { echo "no crash reported"; cat "$work/out.txt"; exit 1; }
grep -q "hang: no exit within" "$work/out.txt" || { echo "no hang reported"; cat "$work/out.txt"; exit 1; }
grep -q "refused without saying where" "$work/out.txt" || { echo "placeless refusal not reported"; exit 1; }
[ -n "$(ls "$work/kept")" ] || { echo "no failing input kept"; exit 1; }
echo "fuzz.py reports crashes, hangs and placeless refusals"
