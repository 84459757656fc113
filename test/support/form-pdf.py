"""Writes a one-page PDF form from raw PDF objects (no PDF library), for the form tests.

Fields: name (text), city (text, child of "address"), subscribe (checkbox, on state /Yes),
plan (radio group: Basic, Pro), colour (dropdown: Red, Green); and a square annotation with an
appearance of its own. Usage: python3 form-pdf.py OUT.pdf
"""
import sys

def stream(body, extra=""):
    data = body.encode("latin-1")
    return f"<< /Length {len(data)} {extra}>>\nstream\n".encode() + data + b"\nendstream"

box = "q 0 0 1 rg 0 0 20 20 re f Q"
check = "q 0 0 0 rg 4 4 12 12 re f Q"
objects = {
    1: b"<< /Type /Catalog /Pages 2 0 R /AcroForm << /Fields [5 0 R 6 0 R 8 0 R 9 0 R 12 0 R] /DA (/Helv 0 Tf 0 g) /DR << /Font << /Helv 4 0 R >> >> >> >>",
    2: b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    3: b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 400] /Contents 13 0 R /Resources << /Font << /Helv 4 0 R >> >> /Annots [5 0 R 7 0 R 8 0 R 10 0 R 11 0 R 12 0 R 14 0 R] >>",
    4: b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    5: b"<< /FT /Tx /T (name) /Type /Annot /Subtype /Widget /Rect [20 340 220 370] /P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) >>",
    6: b"<< /T (address) /Kids [7 0 R] >>",
    7: b"<< /FT /Tx /T (city) /Parent 6 0 R /Type /Annot /Subtype /Widget /Rect [20 300 220 330] /P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) >>",
    8: b"<< /FT /Btn /T (subscribe) /V /Off /AS /Off /Type /Annot /Subtype /Widget /Rect [20 260 40 280] /P 3 0 R /F 4 /AP << /N << /Yes 15 0 R /Off 16 0 R >> >> >>",
    9: b"<< /FT /Btn /Ff 49152 /T (plan) /V /Off /Kids [10 0 R 11 0 R] >>",
    10: b"<< /Parent 9 0 R /AS /Off /Type /Annot /Subtype /Widget /Rect [20 220 40 240] /P 3 0 R /F 4 /AP << /N << /Basic 15 0 R /Off 16 0 R >> >> >>",
    11: b"<< /Parent 9 0 R /AS /Off /Type /Annot /Subtype /Widget /Rect [60 220 80 240] /P 3 0 R /F 4 /AP << /N << /Pro 15 0 R /Off 16 0 R >> >> >>",
    12: b"<< /FT /Ch /Ff 131072 /T (colour) /Opt [(Red) (Green)] /Type /Annot /Subtype /Widget /Rect [20 180 220 210] /P 3 0 R /F 4 /DA (/Helv 12 Tf 0 g) >>",
    13: stream("BT /Helv 14 Tf 250 350 Td (Form body) Tj ET"),
    14: b"<< /Type /Annot /Subtype /Square /Rect [300 20 380 100] /F 4 /C [1 0 0] /AP << /N 17 0 R >> >>",
    15: stream(check + " " + box.replace("0 0 1 rg", "0 0 1 RG").replace(" f ", " S "), "/Type /XObject /Subtype /Form /BBox [0 0 20 20] "),
    16: stream("q 0 0 1 RG 0 0 20 20 re S Q", "/Type /XObject /Subtype /Form /BBox [0 0 20 20] "),
    17: stream("q 1 0 0 rg 0 0 80 80 re f Q", "/Type /XObject /Subtype /Form /BBox [0 0 80 80] "),
}
out = bytearray(b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
offsets = {}
for number in sorted(objects):
    offsets[number] = len(out)
    out += f"{number} 0 obj\n".encode() + objects[number] + b"\nendobj\n"
xref = len(out)
size = max(objects) + 1
out += f"xref\n0 {size}\n0000000000 65535 f \n".encode()
for number in range(1, size):
    out += f"{offsets[number]:010d} 00000 n \n".encode()
out += f"trailer\n<< /Size {size} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n".encode()
open(sys.argv[1], "wb").write(out)
