#!/usr/bin/env bash
# The programs the tests drive besides Node: a headless Chromium for the docs page, and the
# reference tools the differential checks compare against (poppler's pdfinfo/pdftoppm, qpdf,
# ImageMagick, Ghostscript; libwebp's tools, which write animated WebPs as real encoders do, and
# Pillow, which reads them back through libwebp's animation decoder), and Debian's ffmpeg: the
# release the ffmpeg layer is compiled from, which the media code runs outside Lambda; and Debian's LibreOffice (-nogui) with the Carlito and
# Caladea fonts, which /office-to-pdf runs outside its container image; Debian's
# Tesseract with the language data /ocr ships (eng, deu, fra, spa, ita, por, nld, and osd for
# orientation), which /ocr runs outside Lambda and the tesseract layer is copied from; oathtool, GNU
# patch, PyYAML and PyJWT, the references of the data and crypto routes (TOTP codes, unified diffs,
# YAML, signed JWTs). `npm test` runs this first;
# no test file installs anything.
#
# Installs the missing ones from Debian's packages when it can (as root, or through sudo without a
# password); otherwise prints the exact command and fails, so the tests never start without them.
# A Chromium elsewhere can be named with CHROMIUM_PATH; SYSTEM_TOOLS_INSTALL=never only checks.
set -euo pipefail

# "package:command" pairs: the Debian package, and a command that shows it is there.
tools=(
  chromium:chromium
  poppler-utils:pdftoppm
  poppler-utils:pdfinfo
  qpdf:qpdf
  imagemagick:identify
  ghostscript:gs
  ffmpeg:ffmpeg
  ffmpeg:ffprobe
  webp:img2webp
  webp:gif2webp
  webp:webpmux
  webp:cwebp
  python3-pil:python3-pil
  libreoffice-nogui:soffice
  fonts-crosextra-carlito:font-carlito
  fonts-crosextra-caladea:font-caladea
  zbar-tools:zbarimg
  dmtx-utils:dmtxread
  zint:zint
  python3-zxing-cpp:python3-zxing-cpp
  tesseract-ocr:tesseract
  tesseract-ocr-eng:tessdata-eng
  tesseract-ocr-deu:tessdata-deu
  tesseract-ocr-fra:tessdata-fra
  tesseract-ocr-spa:tessdata-spa
  tesseract-ocr-ita:tessdata-ita
  tesseract-ocr-por:tessdata-por
  tesseract-ocr-nld:tessdata-nld
  tesseract-ocr-osd:tessdata-osd
  oathtool:oathtool
  patch:patch
  python3-yaml:python3-yaml
  python3-jwt:python3-jwt
)

# Where test/support/browser.ts looks for a Chromium, in the same order.
chromium_paths=(
  /usr/lib/chromium/chromium
  /usr/bin/chromium
  /usr/bin/chromium-browser
  /usr/bin/google-chrome-stable
  /usr/bin/google-chrome
)

has_chromium() {
  if [[ -n "${CHROMIUM_PATH:-}" ]]; then [[ -x "$CHROMIUM_PATH" ]]; return; fi
  local path
  for path in "${chromium_paths[@]}"; do [[ -x "$path" ]] && return 0; done
  return 1
}

has() {
  case "$1" in
    chromium) has_chromium ;;
    identify) identify -version 2>/dev/null | grep -q ImageMagick ;;
    python3-pil) /usr/bin/python3 -c 'import PIL.WebPImagePlugin' 2>/dev/null ;;
    python3-zxing-cpp) /usr/bin/python3 -c 'import zxingcpp' 2>/dev/null ;;
    python3-yaml) /usr/bin/python3 -c 'import yaml' 2>/dev/null ;;
    python3-jwt) /usr/bin/python3 -c 'import jwt' 2>/dev/null ;;
    font-*) fc-list : family 2>/dev/null | grep -qi "^${1#font-}" ;;
    tessdata-*) tesseract --list-langs 2>/dev/null | grep -qx "${1#tessdata-}" ;;
    *) command -v "$1" >/dev/null 2>&1 ;;
  esac
}

missing_packages() {
  local pair seen=" "
  for pair in "${tools[@]}"; do
    local package=${pair%%:*} command=${pair#*:}
    if ! has "$command" && [[ "$seen" != *" $package "* ]]; then
      seen+="$package "
      printf '%s\n' "$package"
    fi
  done
}

mapfile -t missing < <(missing_packages)
if ((${#missing[@]} == 0)); then
  echo "system tools: all present (chromium, poppler-utils, qpdf, imagemagick, ghostscript, ffmpeg, webp, python3-pil, libreoffice, fonts, zbar, dmtx, zint, zxing-cpp, tesseract, oathtool, patch, python3-yaml, python3-jwt)"
  exit 0
fi

command="apt-get install -y --no-install-recommends ${missing[*]}"
as_root=()
if [[ "${SYSTEM_TOOLS_INSTALL:-}" == never ]]; then
  as_root=(none)
elif ((EUID != 0)); then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then as_root=(sudo -n); else as_root=(none); fi
fi

if [[ "${as_root[0]:-}" == none ]] || ! command -v apt-get >/dev/null 2>&1; then
  echo "system tools missing: ${missing[*]}" >&2
  echo "Install them, then run the tests again:" >&2
  echo "  sudo apt-get update && sudo $command" >&2
  echo "(on a system without apt-get, install the same programs from its own packages; a Chromium elsewhere can be named with CHROMIUM_PATH)" >&2
  exit 1
fi

apt() {
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 -y -q "$@"
}

echo "system tools: installing ${missing[*]}"
# The package lists are refreshed only when the first attempt cannot find a package.
if ! apt install --no-install-recommends "${missing[@]}"; then
  apt update
  apt install --no-install-recommends "${missing[@]}"
fi

mapfile -t still < <(missing_packages)
if ((${#still[@]} > 0)); then
  echo "system tools: apt-get installed ${missing[*]}, yet ${still[*]} is still not usable" >&2
  exit 1
fi
echo "system tools: installed ${missing[*]}"
