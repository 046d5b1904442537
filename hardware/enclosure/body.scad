// The stand's body: one parametric model for every build (minimal.scad,
// touch-mpr121.scad, touch-serial.scad set its parameters and call stand()).
//
// The body is a hollow wedge: two faces, each leaning back TILT degrees from
// vertical, one towards each seat, back to back over a rectangular foot print,
// with the end walls between them. Each face carries one panel behind a window.
// A player sees only the face turned to them: the other face leans away on the
// far side of the wedge, as the two sides of the game's plastic stand do.
//
// Why 20 degrees: a seated player's eyes are about 40 cm above the table and
// 40-50 cm from the stand, so the sight line drops 30-40 degrees to the screen.
// Leaning the face 20 degrees brings the screen within 20 degrees of square to
// that line (e-paper reads the same well past that) while the wedge stays
// narrow: each extra degree moves the two faces' tops towards each other and
// the panels' backs need that depth. tests/test_enclosure.py checks the whole
// active area is seen from each seat's eye and not from the other seat's.
//
// Coordinates: millimetres, z up from the table, seat A on -y, seat B on +y, the
// mat (touch builds) on -x. A face's own frame (s, t, w): s along the face to
// the seat's right, t up the slope from the table, w out of the face towards
// the seat (w = 0 is the face's outer surface).
//
// `part` chooses what is drawn: "body", "lid" (as printed), "assembled" (the
// body with its lid on), "way_in" (what a module touches sliding in from the
// top: empty when it slides in freely), "contents" (the
// panels and what hangs on them, modelled as boxes), "fit" (what the assembled
// body and the contents share, plus what the two seats' contents share: empty
// when everything fits), "preview" (the assembled stand with its contents).
// Every part also echoes, in world coordinates, the facts the tests check:
//     ECHO: "KS", kind, ...

include <panels.scad>

WALL = 2.4;  // every wall; the tests hold it to at least 1.6 (PLA, 0.4 mm nozzle)
CLEAR = 0.3;  // between a board and the body
LIP = 3.0;  // how far a channel's lip reaches over a board's back edge
LIP_T = 1.8;  // lip thickness
EYE_BACK = 450;  // a seated player's eyes: this far from the foot print ...
EYE_UP = 400;  // ... and this high above the table
EYE_ASIDE = -250;  // the stand beside the word cards: the eyes are at the mat's middle

function bget(b, key) = b[search([key], b)[0]][1];

// One seat's face frame as a matrix on [s, t, w, 1]; seat 1 is seat 0 turned
// half a turn about z.
function face_m(D, tilt, seat) = seat == 0
    ? [[1, 0, 0, 0], [0, sin(tilt), -cos(tilt), -D / 2], [0, cos(tilt), sin(tilt), 0], [0, 0, 0, 1]]
    : [[-1, 0, 0, 0], [0, -sin(tilt), cos(tilt), D / 2], [0, cos(tilt), sin(tilt), 0], [0, 0, 0, 1]];
function pt(M, p) = let(q = M * [p[0], p[1], p[2], 1]) [q[0], q[1], q[2]];
function dv(M, d) = let(q = M * [d[0], d[1], d[2], 0]) [q[0], q[1], q[2]];

// The build's derived figures.
function ow(b) = pget(bget(b, "panel"), "outline")[0];
function oh(b) = pget(bget(b, "panel"), "outline")[1];
function gt(b) = pget(bget(b, "panel"), "glass")[2];
function pcb_w(b) = -WALL - CLEAR - gt(b);  // w of the board's front
// The edge the flex cable folds round: "bottom" unless its entry names "left"
// or "right" (a panel whose flex leaves the glass's short side, as the 2.9"
// and 2.7" ones' do).
function fpc_edge(p) = let(f = pget(p, "fpc")) len(f) > 3 ? f[3] : "bottom";
// How far the module's connector (its plug and the bend of its leads, when they
// leave along the board) reaches past the board's right (m = 0) or left (m = 1)
// edge; 0 when it stays on the board.
function cn_past(p, m) = let(c = pget(p, "connector"), w = pget(p, "outline")[0])
    len(c) == 0 ? 0 : max(0, m == 0 ? c[0] + c[2] - w : -c[0]);
// Whether the connector sits at edge m, where the channel's lip and rib run.
function cn_at(p, m) = let(c = pget(p, "connector"), w = pget(p, "outline")[0])
    len(c) > 0 && (m == 0 ? c[0] + c[2] > w - LIP - CLEAR : c[0] < LIP + CLEAR);
// Room between the board and each end wall: what a flex folded round a side edge
// or a connector's leads need; the body grows by the larger on both sides, so
// the board stays centred and the two seats' faces (mirror images) fit alike.
function flex_side(b) = let(p = bget(b, "panel"))
    max(fpc_edge(p) == "bottom" ? 0 : pget(p, "fpc")[2], cn_past(p, 0), cn_past(p, 1));
function body_w(b) = ow(b) + 2 * CLEAR + 2 * WALL + 2 * flex_side(b);
function body_h(b) = (bget(b, "t0") + oh(b) + CLEAR + 2 + WALL) * cos(bget(b, "tilt")) + 2;
function hy(b, z, g) = bget(b, "depth") / 2 - z * tan(bget(b, "tilt")) + g / cos(bget(b, "tilt"));
// Board point [x, y, z] (z out of the board's front) to face [s, t, w].
function board_to_face(b, p) = [p[0] - ow(b) / 2, bget(b, "t0") + p[1], pcb_w(b) + p[2]];
function board_pt(b, seat, p) = pt(face_m(bget(b, "depth"), bget(b, "tilt"), seat), board_to_face(b, p));

module in_face(b, seat) {
    multmatrix(face_m(bget(b, "depth"), bget(b, "tilt"), seat)) children();
}
module on_board(b, seat) {
    in_face(b, seat) translate([-ow(b) / 2, bget(b, "t0"), pcb_w(b)]) children();
}
module box(p0, p1) {
    translate(p0) cube([p1[0] - p0[0], p1[1] - p0[1], p1[2] - p0[2]]);
}

// The wedge between heights z0 and z1, grown by g all round (negative: shrunk).
module wedge(b, z0, z1, g) {
    hx = body_w(b) / 2 + g;
    a = hy(b, z0, g);
    c = hy(b, z1, g);
    polyhedron(
        [[-hx, -a, z0], [hx, -a, z0], [hx, a, z0], [-hx, a, z0],
         [-hx, -c, z1], [hx, -c, z1], [hx, c, z1], [-hx, c, z1]],
        [[0, 1, 2, 3], [4, 5, 1, 0], [7, 6, 5, 4], [5, 6, 2, 1], [6, 7, 3, 2], [7, 4, 0, 3]]);
}

// ---- what the stand holds -------------------------------------------------

// The board and what is fixed to it, in board coordinates; `reach` stretches
// each part up the face by that much: the room it sweeps sliding in from the
// top (every part is a box square to the board, so its sweep is a longer box).
module board_parts(b, seat, reach = 0) {
    p = bget(b, "panel");
    g = pget(p, "glass");
    ga = pget(p, "glass_at");
    pcb = pget(p, "pcb");
    bk = pget(p, "back");
    f = pget(p, "fpc");
    box([ga[0], ga[1], 0], [ga[0] + g[0], ga[1] + g[1] + reach, g[2]]);
    box([0, 0, -pcb], [ow(b), oh(b) + reach, 0]);
    box([bk[0], bk[0], -pcb - bk[1]], [ow(b) - bk[0], oh(b) - bk[0] + reach, -pcb]);
    assert(fpc_edge(p) == "bottom" || fpc_edge(p) == "left" || fpc_edge(p) == "right",
        "fpc: edge is bottom, left or right");
    // A flex on a side edge runs from the glass's end over the board's front
    // and round that edge (or, a glass past the edge, round the glass's end);
    // one on the bottom edge, round the bottom.
    if (fpc_edge(p) == "left")
        box([min(ga[0], 0) - f[2], f[0] - f[1] / 2, -pcb], [max(ga[0], 0), f[0] + f[1] / 2 + reach, g[2]]);
    else if (fpc_edge(p) == "right")
        box([min(ga[0] + g[0], ow(b)), f[0] - f[1] / 2, -pcb],
            [max(ga[0] + g[0], ow(b)) + f[2], f[0] + f[1] / 2 + reach, g[2]]);
    else
        box([f[0] - f[1] / 2, -f[2], -pcb], [f[0] + f[1] / 2, reach, g[2]]);
    k = pget(p, "keys");
    if (len(k) > 0) for (c = k[0])
        box([c[0] - k[1][0] / 2, c[1] - k[1][0] / 2, 0], [c[0] + k[1][0] / 2, c[1] + k[1][0] / 2 + reach, k[1][1]]);
    cn = pget(p, "connector");
    if (len(cn) > 0) box([cn[0], cn[1], -pcb - cn[4]], [cn[0] + cn[2], cn[1] + cn[3] + reach, -pcb]);
    hd = pget(p, "header");
    if (len(hd) > 0 && !(seat == 0 && bget(b, "pi_stack")))
        box([hd[0], hd[1], -pcb - hd[4]], [hd[2], hd[3] + reach, -pcb]);
}

// A module's way in (`retainer` "channel"): down its channel from the open top,
// so everything it sweeps on the way must miss the body (the lid goes on last).
module way_in(b, seat) {
    reach = body_h(b) / cos(bget(b, "tilt")) + oh(b);
    on_board(b, seat) board_parts(b, seat, reach);
}

module panel_contents(b, seat) {
    on_board(b, seat) {
        board_parts(b, seat);
        if (seat == 0 && bget(b, "pi_stack")) pi_stack(b);
    }
    if (bget(b, "buttons")) for (s = button_s(b)) in_face(b, seat) {
        // A 12 mm tactile key glued behind its hole: body 12 x 12 x 4 mm, and its
        // 7 mm cap through the wall to 0.5 mm short of the face.
        h = BUTTON_SIDE / 2;
        box([s - h, button_t(b) - h, -WALL - CLEAR - 4], [s + h, button_t(b) + h, -WALL - CLEAR]);
        translate([s, button_t(b), -WALL - CLEAR]) cylinder(d = 7, h = WALL + CLEAR - 0.5, $fn = 24);
    }
}

// Seat A's HAT on the Pi, through the splitter (board coordinates: the Pi's
// outline is the HAT's, 85 x 56, the Pi's own drawing; its parts face the HAT).
// Modelled: 19.5 mm from the HAT's back to the Pi's board (the HAT's 8.5 mm
// socket and about 11 mm of splitter: an assumption, measure yours), the
// Pi's 1.4 mm board and 2 mm under it; the USB and Ethernet overhang 2.5 mm
// on the right, the SD card 2.5 mm on the left, the USB-C plug and its bend
// 25 mm below the bottom edge at x 7-15.5 (Pi 4 drawing: USB-C at 11.2).
module pi_stack(b) {
    pcb = pget(bget(b, "panel"), "pcb");
    z0 = -pcb - 19.5;
    box([0, 0, z0 - 3.4], [85, 56, -pcb]);
    box([85, 2, z0], [87.5, 54, z0 + 16]);
    box([-2.5, 22, z0 - 3.4], [0, 34, z0 - 1.4]);
    box([7, -25, z0], [15.5, 0, z0 + 3.5]);
}

// A touch build's four keys, in a row under the window: left to right as the
// seat sees them clue, pass, undo, menu (the profile's [input.keys] wires them;
// hardware/README.md says which hole takes which). The screen draws a strip
// along its bottom edge cut into four equal bands, one per key, each key's
// label centred on its band: so key k sits under the centre of the k-th
// quarter of the active area's width, where the window shows it (s = 0 is the
// board's middle; the active area need not be centred on the board: the 2.9"
// one sits 3.05 mm off, towards the end away from its flex).
BUTTON_SIDE = 12;  // a 12 mm tactile key's body, square
// The least room kept between two keys' bodies: a choice, not a measurement
// (no datasheet gives one), for the keys' legs, their tolerance and the glue.
BUTTON_GAP = 1.0;
// The active area along the face: [s of its left edge as the seat sees it, its width].
function active_s(b) = let(p = bget(b, "panel"))
    [pget(p, "glass_at")[0] + pget(p, "active_at")[0] - ow(b) / 2, pget(p, "active")[0]];
function button_t(b) = bget(b, "t0") / 2 - 1;
function button_s(b) = let(a = active_s(b), pitch = a[1] / 4)
    assert(pitch >= BUTTON_SIDE + BUTTON_GAP,
        str("keys: the active area is ", a[1], " mm wide, so its quarters' centres are ", pitch,
            " mm apart, less than ", BUTTON_SIDE + BUTTON_GAP, " mm (", BUTTON_SIDE, " mm key bodies with ",
            BUTTON_GAP, " mm between them): the keys cannot each sit under their label"))
    [for (k = [0:3]) a[0] + (k + 0.5) * pitch];

module contents(b) {
    panel_contents(b, 0);
    panel_contents(b, 1);
}

// ---- the body ----------------------------------------------------------------

// What each face adds inside: the panel's retainer (a HAT's four bosses, or a
// module's channel: two lips behind the board's side edges and two stops
// under its bottom corners).
module face_solid(b, seat) {
    p = bget(b, "panel");
    pcb = pget(p, "pcb");
    t0 = bget(b, "t0");
    back = pcb_w(b) - pcb - CLEAR;  // w just behind the board
    if (bget(b, "retainer") == "bosses") {
        h = pget(p, "holes");
        // Each boss stops 0.05 mm short of the board: a fit, not a touch.
        for (c = h[0]) in_face(b, seat) difference() {
            translate([c[0] - ow(b) / 2, t0 + c[1], pcb_w(b) + 0.05]) cylinder(d = 5.5, h = -pcb_w(b) - WALL - 0.04, $fn = 24);
            translate([-ow(b) / 2, t0, pcb_w(b)]) glass_clearance(b);
        }
    } else in_face(b, seat) {
        out = ow(b) / 2 + CLEAR + flex_side(b);  // the end wall's inside
        f = pget(p, "fpc");
        // mirror m = 1 is the board's left edge, m = 0 its right: where a side
        // flex folds round, the rib beside the edge stops 1 mm under the flex,
        // so the flex comes down the channel from the top without meeting it;
        // at the connector's edge the lip behind the board and the rib stop
        // 1 mm under the connector, which comes down the channel plugged in.
        cn = pget(p, "connector");
        for (m = [0, 1]) mirror([m, 0, 0]) {
            cn_top = cn_at(p, m) ? t0 + cn[1] - 1 : body_slope(b);
            flex_top = fpc_edge(p) == (m == 1 ? "left" : "right") ? t0 + f[0] - f[1] / 2 - 1 : body_slope(b);
            rib_top = min(cn_top, flex_top);
            box([ow(b) / 2 - LIP, t0 - 3, back - LIP_T], [out + 0.01, cn_top, back]);
            box([ow(b) / 2 + CLEAR - 0.01, t0 - 3, back - LIP_T], [out + 0.5, rib_top, -WALL + 0.01]);
            box([ow(b) / 2 - 8, t0 - CLEAR - 3, back], [out + 0.01, t0 - CLEAR, -WALL + 0.01]);
        }
    }
}
function body_slope(b) = (body_h(b) - 2) / cos(bget(b, "tilt")) - WALL;

module glass_clearance(b) {
    g = pget(bget(b, "panel"), "glass");
    ga = pget(bget(b, "panel"), "glass_at");
    translate([ga[0] - CLEAR, ga[1] - CLEAR, -1]) cube([g[0] + 2 * CLEAR, g[1] + 2 * CLEAR, g[2] + CLEAR + 1]);
}

// What each face cuts: the window (the active area and 0.5 mm, widening
// outwards at 45 degrees so an eye off to the side is not shaded by the
// wall's edge), the keys' holes, the screws' holes.
module face_cuts(b, seat) {
    p = bget(b, "panel");
    a = pget(p, "active");
    aa = [pget(p, "glass_at")[0] + pget(p, "active_at")[0], pget(p, "glass_at")[1] + pget(p, "active_at")[1]];
    in_face(b, seat) translate([-ow(b) / 2, bget(b, "t0"), 0]) {
        hull() {
            translate([aa[0] - 0.5, aa[1] - 0.5, -WALL - 1]) cube([a[0] + 1, a[1] + 1, 0.01]);
            translate([aa[0] - 0.5 - WALL - 2, aa[1] - 0.5 - WALL - 2, 1]) cube([a[0] + 2 * WALL + 5, a[1] + 2 * WALL + 5, 0.01]);
        }
        k = pget(p, "keys");
        if (len(k) > 0) for (c = k[0]) {
            translate([c[0] - k[1][0] / 2 - 0.5, c[1] - k[1][0] / 2 - 0.5, -WALL - 1]) cube([k[1][0] + 1, k[1][0] + 1, WALL + 2]);
        }
        if (bget(b, "retainer") == "bosses") for (c = pget(p, "holes")[0])
            translate([c[0], c[1], pcb_w(b) - 1]) cylinder(d = 2.8, h = -pcb_w(b) + 2, $fn = 16);
    }
    if (bget(b, "buttons")) for (s = button_s(b)) in_face(b, seat)
        translate([s, button_t(b), -WALL - 1]) cylinder(d = 8, h = WALL + 2, $fn = 24);
}

module shell(b) {
    H = body_h(b);
    lid = bget(b, "lid");
    difference() {
        union() {
            wedge(b, 0, H, 0);
            if (bget(b, "foot") > 0)
                box([body_w(b) / 2 - WALL, -bget(b, "depth") / 2, 0], [body_w(b) / 2 + bget(b, "foot"), bget(b, "depth") / 2, 3]);
        }
        wedge(b, -1, lid ? H + 1 : H - WALL, -WALL);
    }
}

module body(b) {
    difference() {
        union() {
            shell(b);
            intersection() {
                union() { face_solid(b, 0); face_solid(b, 1); }
                wedge(b, 0, body_h(b), 0);
            }
        }
        face_cuts(b, 0);
        face_cuts(b, 1);
        build_cuts(b);
    }
}

// Openings of the build's own: the minimal build's SD card slot, the Pi's
// power lead's notch, the USB/Ethernet end and vents; a touch build's cable
// exit (on +x, away from the mat, over the foot).
module build_cuts(b) {
    W = body_w(b);
    H = body_h(b);
    if (bget(b, "pi_stack")) {
        in_face(b, 0) translate([-ow(b) / 2, bget(b, "t0"), pcb_w(b) - pget(bget(b, "panel"), "pcb") - 19.5]) {
            // SD card: the slot in the -x end wall, 16 mm wide, around the card.
            translate([-10, 20, -7]) cube([10, 16, 8]);
            // USB and Ethernet: the +x end wall open over them (air goes through too).
            translate([83, 0, -4]) cube([10, 56, 21]);
        }
        // The power lead leaves under seat A's face.
        in_face(b, 0) translate([7 - ow(b) / 2 - 2, -1, -WALL - 1]) cube([12.5, 13, WALL + 2]);
        // Vents: slots in the -x end wall, high up, for the air the +x opening lets in.
        for (i = [0:3]) translate([-W / 2 - 1, -12 + i * 7, H - 22]) cube([WALL + 2, 3, 14]);
    }
    if (bget(b, "cable_exit")) translate([W / 2 - WALL - 1, -10, 3]) cube([WALL + 2, 20, 12]);
}

module lid(b) {
    // A cap over the open top: a 2.4 mm plate and a 3 mm skirt round the outside.
    H = body_h(b);
    difference() {
        wedge(b, H - 3, H + WALL, WALL + 0.25);
        wedge(b, H - 4, H, 0.25);
    }
}

module lid_printed(b) {
    translate([0, 0, body_h(b) + WALL]) rotate([180, 0, 0]) lid(b);
}

module assembled(b) {
    body(b);
    if (bget(b, "lid")) lid(b);
}

// ---- the facts the tests check --------------------------------------------

module facts(b) {
    D = bget(b, "depth");
    tilt = bget(b, "tilt");
    p = bget(b, "panel");
    a = pget(p, "active");
    aa = [pget(p, "glass_at")[0] + pget(p, "active_at")[0], pget(p, "glass_at")[1] + pget(p, "active_at")[1]];
    W = body_w(b);
    H = body_h(b);
    for (seat = [0, 1]) {
        M = face_m(D, tilt, seat);
        y = (seat == 0 ? -1 : 1) * (D / 2 + EYE_BACK);
        echo("KS", "eyes", seat, [[0, y, EYE_UP], [EYE_ASIDE, y, EYE_UP]]);
        gz = gt(b);
        echo("KS", "active", seat, [for (c = [[0, 0], [a[0], 0], [a[0], a[1]], [0, a[1]], [a[0] / 2, a[1] / 2]])
            board_pt(b, seat, [aa[0] + c[0], aa[1] + c[1], gz])]);
        out = dv(M, [0, 0, 1]);
        k = pget(p, "keys");
        if (len(k) > 0) for (c = k[0]) echo("KS", "key", seat, board_pt(b, seat, [c[0], c[1], k[1][1]]), out);
        if (bget(b, "buttons")) for (s = button_s(b))
            echo("KS", "key", seat, pt(M, [s, button_t(b), -0.5]), out);
        // Walls, sampled on their outer surface with the way in: each face below
        // its panel and beside its window, each end wall, and the top.
        echo("KS", "wall", str("face ", seat), pt(M, [0, bget(b, "t0") - 4, 0]), dv(M, [0, 0, -1]));
        echo("KS", "wall", str("face ", seat, " above panel"), pt(M, [0, bget(b, "t0") + oh(b) + 2, 0]), dv(M, [0, 0, -1]));
    }
    echo("KS", "wall", "end -x", [-W / 2, 20, H / 3], [1, 0, 0]);
    echo("KS", "wall", "end +x", [W / 2, bget(b, "pi_stack") ? 30 : 0, H - 12], [-1, 0, 0]);
    if (!bget(b, "lid")) echo("KS", "wall", "top", [0, 0, H], [0, 0, -1]);
    // The lid as printed: its plate on the bed.
    if (bget(b, "lid")) echo("KS", "wall_lid", "lid", [0, 0, 0], [0, 0, 1]);
    if (bget(b, "pi_stack")) {
        zpi = -pget(p, "pcb") - 19.5;
        echo("KS", "port", "SD card", board_pt(b, 0, [-2.5, 28, zpi - 2.4]), dv(face_m(D, tilt, 0), [-1, 0, 0]));
        echo("KS", "port", "USB and Ethernet", board_pt(b, 0, [87.5, 28, zpi + 8]), dv(face_m(D, tilt, 0), [1, 0, 0]));
        echo("KS", "port", "power lead", pt(face_m(D, tilt, 0), [11.25 - ow(b) / 2, 6, -WALL - 3]), [0, -1, 0]);
    }
    if (bget(b, "cable_exit")) echo("KS", "port", "cable exit", [W / 2 - WALL - 5, 0, 9], [1, 0, 0]);
    if (bget(b, "foot") > 0) echo("KS", "mat_side", -W / 2);
    echo("KS", "tilt", tilt);
}

module stand(b, part) {
    facts(b);
    if (part == "body") body(b);
    else if (part == "lid") lid_printed(b);
    else if (part == "contents") contents(b);
    else if (part == "assembled") assembled(b);
    else if (part == "fit") {
        intersection() { assembled(b); contents(b); }
        intersection() { panel_contents(b, 0); panel_contents(b, 1); }
    } else if (part == "way_in") {
        // Empty when each module slides in from the top without touching the body
        // (a HAT on bosses goes in from below, with the Pi: nothing to check).
        if (bget(b, "retainer") != "bosses") for (seat = [0, 1])
            intersection() { body(b); way_in(b, seat); }
    } else if (part == "preview") {
        color("SteelBlue") assembled(b);
        color("Gainsboro") contents(b);
    }
}
