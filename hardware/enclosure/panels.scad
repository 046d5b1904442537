// The panels the stands hold: one entry per board, every figure in millimetres.
//
// Frame of an entry: the board seen from the front (the glass side), x to the
// right, y up, origin at the board's lower-left corner. Where a figure comes
// from Waveshare's specification pages or drawings it is cited beside it; where
// no drawing gave it, the comment says "estimate" and why that value: measure
// your board before printing, change the entry, and `make enclosure` and the
// tests (tests/test_enclosure.py) tell whether the body still fits it.
//
// Fields (read with pget(entry, "name")):
//   outline      board outline [w, h]
//   pcb          board thickness
//   glass        raw panel [w, h, thickness]
//   glass_at     the glass's lower-left corner on the board [x, y]
//   active       active area [w, h]
//   active_at    the active area's lower-left corner on the glass [x, y]
//   back         components behind the board: [inset from the outline, depth]
//   fpc          the flex cable folded round the board's bottom edge:
//                [centre x, width, how far it stands below the outline]
//   holes        mounting holes [[x, y], ...] and their diameter (not used by
//                the body: the channel holds a board by its edges)
//   keys         keys on the board's front [[x, y], ...], their [side, height
//                above the board]; [] for a board without keys
//   connector    the module's cable connector on the back and its plug:
//                [x, y, w, h, depth]; [] for a HAT (its header is its connector)
//   header       a HAT's 40-way socket on the back: [x0, y0, x1, y1, depth]

function pget(entry, key) = entry[search([key], entry)[0]][1];

// Waveshare 2.7inch e-Paper HAT (V2), 264 x 176 (the minimal build).
PANEL_2IN7_HAT = [
    ["name", "2.7inch e-Paper HAT (V2)"],
    // Waveshare's 2.7inch e-Paper HAT page, "Outline dimension 85.0mm x 56.0mm";
    // the Raspberry Pi's own board outline too, so the HAT covers the Pi.
    ["outline", [85.0, 56.0]],
    ["pcb", 1.6],  // estimate: standard FR4, no drawing gives it
    // Waveshare, "Outline dimensions (raw panel): 70.42mm x 45.8mm x 0.98mm".
    ["glass", [70.42, 45.8, 0.98]],
    // estimate (no drawing found): the glass against the board's right edge
    // with 0.5 mm to spare, centred top to bottom; the keys use the left margin.
    ["glass_at", [14.08, 5.1]],
    // Waveshare, "Display size: 57.288mm x 38.192mm" (layouts/panels.py, ACTIVE_AREA_MM).
    ["active", [57.288, 38.192]],
    // estimate (no drawing of this raw panel found): centred top to bottom,
    // the wider margin on the flex cable's side.
    ["active_at", [9.8, 3.804]],
    ["back", [4, 3.0]],  // estimate: the driver parts behind the board
    ["fpc", [49.0, 16.0, 1.5]],  // estimate: a 16 mm tail, 1.5 mm round the edge
    // The Raspberry Pi HAT/board hole pattern, 58 x 49 mm, 3.5 mm from the
    // edges, 2.75 mm holes (Raspberry Pi's mechanical drawings).
    ["holes", [[[3.5, 3.5], [61.5, 3.5], [3.5, 52.5], [61.5, 52.5]], 2.75]],
    // estimate from Waveshare's product photographs, not a drawing: four
    // 6 x 6 mm tactile keys in a column in the left margin, KEY1 at the top;
    // 3.5 mm tall over the board (a common 6 x 6 mm SMD key).
    ["keys", [[[7.0, 46.0], [7.0, 34.0], [7.0, 22.0], [7.0, 10.0]], [6.0, 3.5]]],
    ["connector", []],
    // The 40-way header on a Pi-sized board: 51 x 5 mm centred 32.5 mm from
    // the left edge and 3.5 mm from the top (Raspberry Pi's drawings); 8.5 mm
    // socket plus 15 mm of jumper-lead ends (estimate) for HAT B.
    ["header", [7.0, 50.0, 58.0, 55.0, 23.5]],
];

// Waveshare 4.2inch e-Paper Module (V2), 400 x 300 (touch-mpr121).
PANEL_4IN2_MODULE = [
    ["name", "4.2inch e-Paper Module (V2)"],
    // Waveshare's 4.2inch e-Paper Module page, "Outline dimension 103.0 x 78.5mm".
    ["outline", [103.0, 78.5]],
    ["pcb", 1.6],  // estimate: standard FR4
    // Waveshare's 4.2inch e-Paper specification, part 4 "Mechanical Drawing of
    // EPD module": 91 +-0.2 (EPD) wide, 1.18 +-0.1 thick; the Pico-ePaper-4.2
    // page gives 90.1 x 77.0 x 1.18. The larger width is used.
    ["glass", [91.0, 77.0, 1.18]],
    // estimate: the connector end carries the board's extra 12 mm; the glass
    // 0.75 mm from top and bottom (78.5 - 77.0 over two).
    ["glass_at", [11.0, 0.75]],
    // Waveshare, "Display size: 84.8mm x 63.6mm"; the same drawing, 84.8 +-0.1 AA.
    ["active", [84.8, 63.6]],
    // The drawing's margins across: 0.9 + 1.2 + 1 = 3.1 mm each side of the AA
    // (91 = 3.1 + 84.8 + 3.1). Up and down no figure was found: estimate 3.1 mm
    // at the top, the rest (10.3 mm) on the flex cable's side, at the bottom.
    ["active_at", [3.1, 10.3]],
    ["back", [4, 3.0]],  // estimate
    ["fpc", [56.5, 24.0, 1.5]],  // estimate
    // Four corner holes are on the board; no drawing with their positions was found.
    ["holes", [[], 3.0]],
    ["keys", []],
    // estimate: the 9-pin cable connector on the back at the connector end,
    // with the plug and the bend of its wires.
    ["connector", [4.5, 27.0, 8.0, 24.0, 16.0]],
    ["header", []],
];

// Waveshare 2.9inch e-Paper Module (V2), 296 x 128 (touch-serial).
PANEL_2IN9_MODULE = [
    ["name", "2.9inch e-Paper Module (V2)"],
    // Waveshare's 2.9inch e-Paper Module page, "Outline dimension 89.5 x 38.0mm".
    ["outline", [89.5, 38.0]],
    ["pcb", 1.6],  // estimate
    // Waveshare, "Outline dimensions (raw panel): 79.0mm x 36.7mm x 1.05mm".
    ["glass", [79.0, 36.7, 1.05]],
    ["glass_at", [10.0, 0.65]],  // estimate, as for the 4.2"
    // Waveshare, "Display size: 66.89mm x 29.05mm".
    ["active", [66.89, 29.05]],
    // estimate (no drawing found): centred across, the wider margin (8.61 of
    // 12.11 mm) at the flex cable's end, on the left.
    ["active_at", [8.61, 3.825]],
    ["back", [4, 3.0]],  // estimate
    ["fpc", [24.0, 14.0, 1.5]],  // estimate: clear of the channel's stops
    ["holes", [[], 3.0]],  // not found in a drawing
    ["keys", []],
    ["connector", [4.5, 7.0, 8.0, 24.0, 16.0]],  // estimate
    ["header", []],
];
