// The panels the stands hold: one entry per board, every figure in millimetres.
//
// Frame of an entry: the board seen from the front (the glass side), x to the
// right, y up, origin at the board's lower-left corner. Each figure has its
// source beside it: a Waveshare drawing or specification page, the raw panel
// maker's datasheet, a standard's drawing, or (weaker, and said so) a
// hobbyist's published model of the board. Where nothing readable gave a
// figure, the comment says "estimate" and why that value: measure your board
// before printing, change the entry, and `make enclosure` and the tests
// (tests/test_enclosure.py) tell whether the body still fits it.
//
// Sources named below:
//   [WS29-SPEC] Waveshare, "2.9inch e-Paper V2 Specification", Rev 2.1
//       (2020-04-15), https://files.waveshare.com/upload/7/79/2.9inch-e-paper-v2-specification.pdf
//       (read from the copy in github.com/TrDA-hab/Projects,
//       E-PAPER/V21/2.9inch-e-paper-v2-specification.pdf): part 1.3's table and
//       part 1.4 "Mechanical Drawing of EPD module" (driver IC SSD1680Z8).
//   [WS29-MAN] Waveshare, "2.9inch e-Paper Module User Manual" V2.0, page 7
//       (same repository, E-PAPER/V21/2.9inch-e-paper-module-user-manual-en.pdf).
//   [GD29] Good Display, GDEY029T94 specification Rev 1.0 (2021-03-15),
//       https://www.laskakit.cz/user/related_files/gdey029t94.pdf, part 3.
//   [WS42-V1] Waveshare, "4.2inch e-Paper" specification (2017-03-01, the V1
//       raw panel), part 4 "Mechanical Drawing of EPD module", as text at
//       https://www.manualshelf.com/manual/waveshare/13353/datasheet-english.html
//   [WS42-MAN] Waveshare, "4.2inch e-Paper Module User Manual" V2.0
//       (2018-12-05), page 7 (read from the copy in
//       github.com/troncart/E-ink-Display, 4.2inch-e-paper-module-user-manual-en.pdf).
//   [GD42Q] Good Display, GDEQ042T81 specification Rev 1.0 (2022-11-09), part
//       1.3 and part 1.4 "Mechanical Drawing of EPD module" (SSD1683, 400 x 300;
//       the drawing read off the rendered page), from the copy in
//       github.com/markbirss/E-paper-Display-Library-of-GoodDisplay,
//       Specifications_E-paper-Display/GDEQ042T81.pdf. A sibling of GDEY042T81,
//       the panel said to be in the V2 module: a public driver's comment quotes
//       Good Display, "The GDEQ042T81 is fully compatible with GDEY042T81".
//   [GD27W3] Good Display, GDEW027W3 specification Rev 3.3 (2020-09-21), part
//       1.3 and part 1.4 "Mechanical Drawing of EPD module" (the drawing read
//       off the rendered page), same repository,
//       Specifications_E-paper-Display/GDEW027W3.pdf: the raw panel of the
//       2.7" V1 (EK79652); the V2 panel's outline and active area as Waveshare
//       gives them are the same figures.
//   [HAT] Raspberry Pi, "HAT board mechanical specification",
//       github.com/raspberrypi/hats, hat-board-mechanical.pdf.
//   [H-MW] hobbyist model: github.com/mattwach/epaper_clock,
//       case_design/lib/mattwach/vitamins/electronics/waveshare_epaper_2.9in.scad
//   [H-RC] hobbyist model: github.com/TeXitoi/rusty-clock, cad/box-v2/epaper.scad
//   [H-JX] hobbyist model: github.com/JONA-X/3D-printing-frame-for-4.2inch-e-ink-display-waveshare,
//       complete_frame.scad (a frame measured round a 4.2" module, V1 by its
//       shop link): the window on the board.
//   [H-IK] hobbyist model: github.com/c0de111/inki (commit 7a1fd7d),
//       hardware/enclosure/Case_frame_waveshare_4_2_epaper/case_4_2.FCStd, the
//       part "Waveshare 4.2" e-Paper Module v1" (for the V2 module, its README
//       says): its "PCB" and its "Display folded cable" shapes, read as
//       vertices and circles from the file's BREP shapes.
//
// Fields (read with pget(entry, "name")):
//   name, model  the board's name; the profiles' model name for its panel
//   kind         "hat" (on a Pi's header, its holes the HAT standard's) or
//                "module" (on a cable; every source for the two modules centres
//                the glass and the holes on the board: tests/test_enclosure.py
//                holds a module's record to that)
//   outline      board outline [w, h]
//   pcb          board thickness
//   glass        raw panel [w, h, thickness]
//   glass_h      how far the glass's front stands off the board's front: the
//                glass and the adhesive under it (no drawing gives the
//                adhesive: an estimate on every board; hardware/README.md
//                "Measure before the long print" says how to measure it)
//   glass_at     the glass's lower-left corner on the board [x, y]
//   active       active area [w, h]
//   active_at    the active area's lower-left corner on the glass [x, y]
//   back         components behind the board: [inset from the outline, depth]
//   fpc          the flex cable folded round an edge of the board:
//                [centre along that edge, width, how far it stands beyond the
//                edge] and, for a side edge, "left" or "right" (the bottom
//                edge otherwise)
//   holes        mounting holes [[x, y], ...] and their diameter (not used by
//                the body: the channel holds a board by its edges)
//   keys         keys on the board's front [[x, y], ...], their [side, height
//                above the board]; [] for a board without keys
//   connector    the module's cable connector on the back and its plug:
//                [x, y, w, h, depth]; [] for a HAT (its header is its connector)
//   header       a HAT's 40-way socket on the back: [x0, y0, x1, y1, depth]

function pget(entry, key) = entry[search([key], entry)[0]][1];

// Waveshare 2.7inch e-Paper HAT (V2), 264 x 176 (the minimal build). Its raw
// panel is said to be Good Display's GDEY027T91 (SSD1680, 176 x 264: the
// panel GxEPD2's src/gdey/GxEPD2_270_GDEY027T91.h drives); no GDEY027T91
// datasheet (its copy in the repository above is past what can be fetched)
// and no drawing of the V2 panel or of the HAT could be read. The active
// area's place on the glass and the flex are [GD27W3]'s, the V1 panel's
// drawing, whose outline and active area are the V2 panel's figures; where
// the glass sits on the HAT and the HAT's parts are estimates.
PANEL_2IN7_HAT = [
    ["name", "2.7inch e-Paper HAT (V2)"],
    ["kind", "hat"],
    ["model", "epd2in7_V2"],  // the profile's [panels] model: layouts/panels.py has its active area too
    // Waveshare's 2.7inch e-Paper HAT page, "Outline dimension 85.0mm x 56.0mm"
    // (as the entry had it; that page was not among the copies read for issue
    // 24); the Raspberry Pi's own board outline too, so the HAT covers the Pi.
    ["outline", [85.0, 56.0]],
    ["pcb", 1.6],  // estimate: no drawing of the HAT gives it; the common FR4 thickness
    // Waveshare, "Outline dimensions (bare screen): 70.42mm × 45.8mm × 0.98mm"
    // (https://www.waveshare.com/wiki/Template:Pico_e-Paper_2.7_Spec); [GD27W3]
    // 1.3, "Outline Dimension 70.42(H)×45.8(V) ×0.98(D)", and 1.4, "70,42±0,2
    // TFT", "45,8±0,2 TFT", "0,98±0,1".
    ["glass", [70.42, 45.8, 0.98]],
    ["glass_h", 1.3],  // estimate: the glass 0.98 and about 0.3 of double-sided tape; measure
    // estimate (no drawing of the HAT found): the glass against the board's
    // right edge with 0.5 mm to spare (where its flex folds round), centred top
    // to bottom; the keys use the left margin.
    ["glass_at", [14.08, 5.1]],
    // Waveshare, "Display size: 57.288mm × 38.192mm" (the page above;
    // layouts/panels.py, ACTIVE_AREA_MM).
    ["active", [57.288, 38.192]],
    // [GD27W3] 1.4: "3,816" from the glass's end away from the flex to the AA
    // (so 70.42 - 57.288 - 3.816 = 9.316 on the flex's end) and "3,804" from
    // its top edge (so 45.8 - 38.192 - 3.804 = 3.804 at the bottom too). The
    // flex's end is on the right here (see "fpc").
    ["active_at", [3.816, 3.804]],
    ["back", [4, 3.0]],  // estimate: the driver parts behind the board; no drawing
    // [GD27W3] 1.4: the flex leaves the glass's short end, "6.05" from its top
    // edge and "24.25" from its bottom edge at the glass (45.8 - 6.05 - 24.25 =
    // 15.5 wide, centred 5.1 + 24.25 + 7.75 = 37.1 up the board), "24.00" long
    // beyond the glass (its 24-way tail "12.50" wide). Which end of the HAT it
    // leaves: estimate, the right, folded round the board's right edge: the
    // glass lies against that edge and the keys fill the left margin, where a
    // flex would cross them (no drawing of the HAT). How far the fold stands
    // beyond the edge (1.5): estimate.
    ["fpc", [37.1, 15.5, 1.5, "right"]],
    // [HAT]: "4x M2.5 mounting holes drilled to 2.75mm +/- 0.05mm", 58 apart
    // across and 49 up, 3.5 from the left and bottom edges.
    ["holes", [[[3.5, 3.5], [61.5, 3.5], [3.5, 52.5], [61.5, 52.5]], 2.75]],
    // estimate from Waveshare's product photographs, not a drawing: four
    // 6 x 6 mm tactile keys in a column in the left margin, KEY1 at the top;
    // 3.5 mm tall over the board (a common 6 x 6 mm SMD key).
    ["keys", [[[7.0, 46.0], [7.0, 34.0], [7.0, 22.0], [7.0, 10.0]], [6.0, 3.5]]],
    ["connector", []],
    // The 40-way header: [HAT] puts its centre 29 from the left holes (32.5
    // from the edge) on the top holes' line (3.5 from the top edge); 51 x 5
    // is the 2 x 20 header at 2.54 mm. Depth: estimate, an 8.5 mm socket
    // plus 15 mm of jumper-lead ends for HAT B (no drawing).
    ["header", [7.0, 50.0, 58.0, 55.0, 23.5]],
];

// Waveshare 4.2inch e-Paper Module (V2), 400 x 300 (touch-mpr121). Its V2 raw
// panel uses the SSD1683 (github.com/rust-embedded-community/epd-waveshare
// pull request 267: "uses the SSD1683 display controller") and is said to be
// Good Display's GDEY042T81 (400 x 300, SSD1683 in GxEPD2's
// src/gdey/GxEPD2_420_GDEY042T81.h); no GDEY042T81 datasheet or Waveshare V2
// drawing could be read: the glass, the active area's place on it and the
// flex are from the drawing of its sibling GDEQ042T81 ([GD42Q]), which agrees
// with the V1 panel's drawing ([WS42-V1]) across. No drawing of the module's
// board was found: where the glass sits on it, the board's thickness, holes
// and connector are two hobbyists' ([H-JX], [H-IK]); how the plug goes in is
// an estimate.
PANEL_4IN2_MODULE = [
    ["name", "4.2inch e-Paper Module (V2)"],
    ["kind", "module"],
    ["model", "epd4in2_V2"],  // the profile's [panels] model: layouts/panels.py has its active area too
    // [WS42-MAN] p. 7, "Dimension": "PCB: 103.0mm × 78.5mm", "Raw Panel:
    // 90.1mm × 77.0mm" (the module's manual of 2018; the entry had the same
    // from Waveshare's module page, "Outline dimension 103.0 x 78.5mm").
    ["outline", [103.0, 78.5]],
    // Weaker: [H-IK]'s board is 1.7 thick (its faces at z -0.85 and 0.85).
    ["pcb", 1.7],
    // [GD42Q] 1.3: "TFT Area 91.0 (H)×77.0 (V)"; 1.4: "91±0.1 (TFT OD)",
    // "77±0.1 (TFT OD)", "1.126±0.1 Without protective film of PS and pull
    // tape". [WS42-V1]: "91±0.2 EPD ... 1.18±0.1"; Waveshare's Pico-ePaper-4.2
    // page: "Outline dimensions (bare screen): 90.1mm × 77.0mm × 1.18mm"
    // (https://www.waveshare.com/wiki/Template:Pico_e-Paper_4.2_Spec). The
    // larger width and thickness are used.
    ["glass", [91.0, 77.0, 1.18]],
    ["glass_h", 1.5],  // estimate: the glass 1.18 and about 0.3 of tape; measure
    // Weaker, a hobbyist's: [H-JX] frames the module's window
    // "displayInnerFrameLeftRight = 9.2" from each side edge of the board
    // ("displayInnerWidth = 84.5"), so the active area is centred across the
    // board, and with [GD42Q]'s 3.1 mm each side of it the glass too:
    // (103 - 91) / 2 = 6.0. Up and down centred, (78.5 - 77.0) / 2: [H-JX]'s
    // "displayInnerFrameTop = 4" and "displayInnerFrameBottom = 11.5" (on a
    // 79 mm board) with [GD42Q]'s 3.1 and 10.3 put it within 0.25 mm of that.
    // [H-IK] agrees: its glass spans x 6.0-97.0 and y 0.71-77.79 on its
    // 103 x 78.5 board. No Waveshare drawing of the module.
    ["glass_at", [6.0, 0.75]],
    // Waveshare, "Display size: 84.8mm x 63.6mm" (the Pico page above);
    // [WS42-V1], "84.8±0.1 AA".
    ["active", [84.8, 63.6]],
    // [GD42Q] 1.4: "3.1" from the glass's right edge and from its top edge to
    // the "TFT AA", so 91 - 84.8 - 3.1 = 3.1 at the left ([WS42-V1]'s "0.9 1.2
    // 1" each side agrees) and 77 - 63.6 - 3.1 = 10.3 at the bottom, the flex
    // cable's edge.
    ["active_at", [3.1, 10.3]],
    // estimate, no drawing of the module's back; [H-IK]'s parts there stand at
    // most 2.74 mm off the board, 20 mm and more in from its edges.
    ["back", [4, 3.0]],
    // [GD42Q] 1.4: the flex leaves the glass's bottom (long) edge "16±0.1"
    // wide, "37.5±0.2" from the glass's right end (37.5 + 16 + 37.5 = 91:
    // centred, 6.0 + 45.5 = 51.5 along the board), "18.5±0.3" long beyond the
    // glass, its 24-way tail "12.5±0.1" wide. How far its fold round the
    // board's bottom edge stands beyond that edge (1.5): estimate.
    ["fpc", [51.5, 16.0, 1.5]],
    // Weaker: [H-IK]'s board has four 3.0 mm holes (radius 1.5) 3.1 mm in from
    // each edge (centres at x ±48.4, y ±36.15 on its 103 x 78.5 board). Not
    // used by the body.
    ["holes", [[[3.1, 3.1], [99.9, 3.1], [3.1, 75.4], [99.9, 75.4]], 3.0]],
    ["keys", []],
    // Weaker: [H-IK]'s board carries its socket on the back at the right end,
    // x 94.8-102.9, y 29.3-49.5, 5.5 mm deep (the row of 8 header holes is at
    // the left end, 3.0 mm in). The socket reaches the board's edge, so its
    // plug is taken to go in from that end, its leads leaving along the board
    // 10 mm past the edge, as for the 2.9" module ([H-RC]): estimate, no
    // drawing shows the plug. 18.1 = 8.1 + 10. Measure yours before printing.
    ["connector", [94.8, 29.3, 18.1, 20.2, 5.5]],
    ["header", []],
];

// Waveshare 2.9inch e-Paper Module (V2), 296 x 128 (touch-serial). Its raw
// panel is Good Display's GDEY029T94: [WS29-SPEC] and [GD29] give the same
// outline, active area and controller (SSD1680).
PANEL_2IN9_MODULE = [
    ["name", "2.9inch e-Paper Module (V2)"],
    ["kind", "module"],
    ["model", "epd2in9_V2"],  // the profile's [panels] model: layouts/panels.py has its active area too
    // [WS29-MAN]: "PCB: 89.5mm × 38mm".
    ["outline", [89.5, 38.0]],
    // Weaker: both hobbyist models, [H-MW] "waveshare_epaper_thickness = 1.6"
    // and [H-RC] "thickness=1.6"; no Waveshare drawing gives it.
    ["pcb", 1.6],
    // [WS29-SPEC] 1.3: "Outline Dimension 36.7(H)×79.0(V)×1.2(T)"; [GD29]:
    // "Outline Dimension 36.7(H)×79.0(V) ×1.2(D)". (The drawing's side view
    // says 1.1±0.1; Waveshare's page says 1.05: the largest is used.)
    ["glass", [79.0, 36.7, 1.2]],
    ["glass_h", 1.5],  // estimate: the glass 1.2 and about 0.3 of tape; measure
    // Weaker: both hobbyist models centre the glass on the board ([H-MW]
    // "(waveshare_epaper_length - waveshare_epaper_screen_width) / 2"; [H-RC]
    // glass and board both centred): (89.5 - 79.0) / 2, (38.0 - 36.7) / 2.
    ["glass_at", [5.25, 0.65]],
    // Waveshare, "Display size: 66.89mm × 29.05mm"; [WS29-SPEC] 1.4, "66.90
    // A.A" and "29.06(A.A)".
    ["active", [66.89, 29.05]],
    // [WS29-SPEC] 1.4: from the glass's far end "3.00" to the A.A, so
    // 79.00 - 66.90 - 3.00 = 9.10 on the flex cable's end (the left); "3.82"
    // from the glass's edge to the A.A, both long sides (36.70 - 29.06 = 2 x 3.82).
    ["active_at", [9.1, 3.82]],
    // estimate: the driver parts behind the board; [H-MW] models the flex's
    // connector on the back 2 mm tall, under this.
    ["back", [4, 3.0]],
    // [WS29-SPEC] 1.4: the flex leaves the glass's short side (the left),
    // "10.42" from the top edge and "10.97" from the bottom, so 15.31 wide
    // centred 0.65 + 10.97 + 15.31 / 2 = 19.27 up the board, and "14.40" long.
    // Weaker: [H-MW] and [H-RC] fold it round the board's short edge to the
    // back. How far it stands beyond that edge: estimate, 1.5 mm (its bend).
    ["fpc", [19.27, 15.31, 1.5, "left"]],
    // Weaker: [H-MW] and [H-RC] put four holes 2.5 from each edge
    // ("waveshare_epaper_bolt_inset = 2.5", "hole_offset=2.5"); their
    // diameters differ (2 and 3 mm): 3.0 kept. Not used by the body.
    ["holes", [[[2.5, 2.5], [87.0, 2.5], [2.5, 35.5], [87.0, 35.5]], 3.0]],
    ["keys", []],
    // The 8-pin cable connector on the back at the end away from the flex, its
    // plug going in from the board's end and the leads leaving along the board:
    // so both hobbyist models of the board ([H-MW] an 18.8 x 6 x 5.7 mm socket
    // centred across at that end, the wires straight out of it; [H-RC] the same
    // end, the cable running 10 mm beyond the edge). No Waveshare drawing of the
    // module's back was found: the socket's place is [H-MW]'s (83.5 = 89.5 - 6,
    // 9.6 = (38 - 18.8) / 2), and the plug and the leads' bend are taken as
    // [H-RC]'s 10 mm past the edge (16 = 6 + 10). Measure yours before printing.
    ["connector", [83.5, 9.6, 16.0, 18.8, 5.7]],
    ["header", []],
];

// Every entry, for the tests' checks of each record (tests/test_enclosure.py).
PANELS = [PANEL_2IN7_HAT, PANEL_4IN2_MODULE, PANEL_2IN9_MODULE];
