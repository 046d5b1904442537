// The stand's body: one parametric model for every build (minimal.scad,
// touch-mpr121.scad, touch-serial.scad set its parameters and call stand()).
//
// The body is a hollow wedge: two faces, each leaning back TILT degrees from
// vertical, one towards each seat, back to back over a rectangular foot print,
// with the end walls between them. Each face carries one panel behind a window.
// A player sees only the face turned to them: the other face leans away on the
// far side of the wedge, as the two sides of the game's plastic stand do.
// Four printed parts close it: a lid on the open top and a base plate under the
// open bottom, each held by M3 screws in heat-set inserts, and (touch builds) a
// key bar a face that holds its four keys in their cradles.
//
// Why 20 degrees: a seated player's eyes are about 40 cm above the table and
// 40-50 cm from the stand, so the sight line drops 30-40 degrees to the screen.
// Leaning the face 20 degrees brings the screen within 20 degrees of square to
// that line (e-paper reads the same well past that) while the wedge stays
// narrow: each extra degree moves the two faces' tops towards each other and
// the panels' backs need that depth. tests/test_enclosure.py measures the tilt
// off the mesh and checks the whole active area is seen from seated eyes and
// none of the other screen from any eye, seated, leaning or standing.
//
// Printing: every part prints without supports (make enclosure slices each with
// PrusaSlicer and the tests fail a part the slicer would support): no downward
// face is flatter than 45 degrees but short bridges. So whatever juts out of a
// face's inside has a ramp under it (`gusset`), holes in a face are pointed at
// the top (`pointed`), and the lid prints upside down.
//
// Coordinates: millimetres, z up from the body's bottom (the base plate's top;
// the table is BASE_T and the feet lower), seat A on -y, seat B on +y, the mat
// (touch builds) on -x. A face's own frame (s, t, w): s along the face to the
// seat's right, t up the slope from z = 0, w out of the face towards the seat
// (w = 0 is the face's outer surface).
//
// `part` chooses what is drawn: "body", "lid", "base", "keybar", "spacer" (as printed),
// "coupon" (seat A's face as a thin frame, printed face down) and
// "parts_coupon" (the bought parts' places): the fit tests of
// hardware/README.md "Measure before the long print", "assembled" (every
// printed part in place), "way_in" (what a module touches sliding in from the
// top: empty when it slides in freely), "contents" (the panels and what hangs on
// them, the boards, the weight, modelled as boxes), "fit" (what the assembled
// parts and the contents share, plus what the two seats' contents share: empty
// when everything fits), "preview" (assembled with contents), "section" (the
// preview cut through the middle of the panels, for the README's pictures).
// Every part also echoes, in world coordinates, the facts the tests check:
//     ECHO: "KS", kind, ...

include <panels.scad>

WALL = 2.4;  // every wall: six perimeters of a 0.4 mm nozzle
CLEAR = 0.3;  // between a board and the body
LIP = 3.0;  // how far a channel's lip reaches over a board's back edge
LIP_T = 1.8;  // lip thickness
RAIL = 3.0;  // how far a channel's rail reaches under a board's front edge (the modules' glass is 5 mm and more in)
// Between the glass's front and the face's inside: a choice, not a
// measurement. A 1 mm foam gasket (hardware/README.md's parts) fills it; the
// screws and lips bear on the board, never on the glass, so a glass that stands
// higher than its entry's glass_h by up to this much is still not pressed.
GLASS_GAP = 1.0;
// The window: the active area and WIN_IN at the face's inside, widening
// outwards so an eye off to the side is not shaded by the wall's edge: at
// WIN_SIDE degrees from square at the left and right edges (an eye beside the
// word cards), WIN_TB at the bottom (an eye above). Its top is level in the
// world: the first layer over a hole in a wall is a bridge from side to side
// whatever the bevel, and a slicer bridges a level ceiling but supports a
// sloping one. So the top leans into the face (it is WIN_TOP above the active
// area at the wall's outside, more inside), which also keeps a HAT's screw
// heads off it.
WIN_IN = 1.0;
WIN_SIDE = 30;
WIN_TB = 30;
WIN_TOP = 2.4;
R_EDGE = 4;  // the wedge's four sloping edges, rounded
CH_TOP = 1;  // the lid's top edges, chamfered 1 mm in over 2 mm down: they print on the bed, so 27 degrees from vertical
CH_BOT = 0;  // the bottom edges: a chamfer on the bed is an overhang; the slicer's elephant's-foot setting instead
BASE_T = 3;  // the base plate
LID_T = 3;  // the lid's plate
// The lid stands VISOR out over each face's top edge: a player standing on one
// side, whose eyes are in front of the other screen's plane, would otherwise
// see it at a graze along that face, over the top (the tests' standing eyes).
VISOR = 8;
// Heat-set inserts for M3 [hole diameter, hole depth]: estimate, the common
// M3 x 4 mm brass insert's hole (makers give 4.0-4.2); its coupon checks it.
INSERT = [4.0, 4.6];
// A rubber bumper foot's recess [diameter, depth]: estimate for 10 mm round
// self-adhesive feet 3-4 mm tall, so 2-3 mm stands proud: more than the base
// plate's M3 button heads (1.65 mm) under it. Its coupon checks it.
FOOT = [10.5, 1.0];
// The M2.5 screws through a HAT: ISO 7045 pan head, head diameter 5.0 (its
// largest); hardware/README.md's parts list gives their lengths.
HEAD_D = 5.0;
// Their length: HAT B's go into M2.5 nuts (ISO 4032, 2.0 mm tall), HAT A's
// into the standoffs between it and the Pi; tests/test_enclosure.py measures
// each screw's grip on the mesh and holds this to it with a nut and a thread
// to spare.
HAT_SCREW = [12, 10];
// Their holes through the face: ISO 273's fine clearance hole for M2.5.
SCREW_HOLE = 2.8;  // seat A's (into standoffs), seat B's (into nuts)
// A 12 mm tactile key: body side, body height under the cap (estimate: makers'
// 12 x 12 keys are 3.5-4.3 mm to the body's top), its round cap's diameter.
KEY = [12, 4.0, 7];
KEY_GAP = 1.0;  // the least room between two keys' cradles' bodies: a choice
KEYBAR_T = 2.4;  // the key bar behind each seat's keys
GUSSET_K = 2.5;  // a ramp under a ledge on a face runs this far down per mm it juts out: 45 degrees in the world
CLOSED_TOP = false;  // "way_in" with the lid on (tests/test_enclosure.py's control)

function bget(b, key) = b[search([key], b)[0]][1];
function has(b, key) = len(search([key], b)) > 0 && search([key], b)[0] != [];

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
function gh(b) = pget(bget(b, "panel"), "glass_h");
function pcb_w(b) = -WALL - GLASS_GAP - gh(b);  // w of the board's front
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
// The minimal build's Pi overhangs its HAT by 2.5 mm at both ends (its USB and
// Ethernet, its SD card): 3 mm.
function flex_side(b) = let(p = bget(b, "panel"))
    max(fpc_edge(p) == "bottom" ? 0 : pget(p, "fpc")[2], cn_past(p, 0), cn_past(p, 1), bget(b, "pi_stack") ? 3 : 0);
function body_w(b) = ow(b) + 2 * CLEAR + 2 * WALL + 2 * flex_side(b);
// The body's top (the lid's underside): room above the board to slide it, and
// the lid's bosses under it.
function body_h(b) = (bget(b, "t0") + oh(b) + CLEAR + 2) * cos(bget(b, "tilt")) + bget(b, "headroom");
function top_h(b) = body_h(b) + LID_T;
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

// The wedge between heights z0 and z1, grown by g all round (negative: shrunk),
// sharp-edged (for cuts).
module wedge(b, z0, z1, g) {
    hx = body_w(b) / 2 + g;
    a = hy(b, z0, g);
    c = hy(b, z1, g);
    polyhedron(
        [[-hx, -a, z0], [hx, -a, z0], [hx, a, z0], [-hx, a, z0],
         [-hx, -c, z1], [hx, -c, z1], [hx, c, z1], [-hx, c, z1]],
        [[0, 1, 2, 3], [4, 5, 1, 0], [7, 6, 5, 4], [5, 6, 2, 1], [6, 7, 3, 2], [7, 4, 0, 3]]);
}

// The wedge's cross-section at height z, grown by g, its corners rounded to r,
// as a thin slice (hulled into solids below).
module slice(b, z, g, r, inset = 0, gy = 0) {
    translate([0, 0, z]) linear_extrude(0.01) section2d(b, z, g, r, inset, gy);
}
module section2d(b, z, g, r, inset = 0, gy = 0) {
    hx = body_w(b) / 2 + g - inset;
    a = hy(b, z, g) - inset + gy;
    offset(r = r) square([2 * (hx - r), 2 * (a - r)], center = true);
}
// The stand's outside, body and lid together: sloping edges rounded, the lid's
// top edges chamfered (CH_TOP), the lid over the faces' top edges (VISOR).
module outside(b) {
    body_outside(b);
    lid_outside(b);
}
module body_outside(b) {
    hull() {
        slice(b, 0, 0, R_EDGE, CH_BOT);
        slice(b, CH_BOT, 0, R_EDGE);
        slice(b, body_h(b), 0, R_EDGE);
    }
}
// the lid's part, over the faces by VISOR
module lid_outside(b) {
    H = top_h(b);
    hull() {
        slice(b, body_h(b), 0, R_EDGE, 0, VISOR);
        slice(b, H - 2 * CH_TOP - 0.01, 0, R_EDGE, 0, VISOR);
        slice(b, H - 0.01, 0, R_EDGE, CH_TOP, VISOR);
    }
}
// The hollow inside, from below the bottom to above the top: the walls WALL thick
// everywhere (its corners rounded to R_EDGE - WALL).
module inside(b, z0, z1) {
    hull() { slice(b, z0, -WALL, R_EDGE - WALL); slice(b, z1, -WALL, R_EDGE - WALL); }
}

// A ledge on a face's inside, s0-s1 along it, t0-t1 up it, standing from the
// wall out to depth d (w = -WALL - d), with a ramp under it down the wall, so
// that it prints without support.
module gusset(s0, s1, t0, t1, d) {
    hull() {
        box([s0, t0, -WALL - d], [s1, t1, -WALL + 0.01]);
        box([s0, t0 - GUSSET_K * d, -WALL - 0.01], [s1, t1, -WALL + 0.01]);
    }
}
// A hole through a face, w wide and h tall (s, t), its top pointed at 45
// degrees up the face (so its roof is 42 degrees from vertical in the world).
module pointed(s, t, w, h, d0, d1) {
    translate([s, t, d0]) linear_extrude(d1 - d0)
        polygon([[-w / 2, -h / 2], [w / 2, -h / 2], [w / 2, h / 2], [0, h / 2 + w / 2], [-w / 2, h / 2]]);
}
// A round hole through a face with a pointed top (a teardrop).
module teardrop(s, t, d, d0, d1) {
    translate([s, t, d0]) linear_extrude(d1 - d0)
        hull() { circle(d = d, $fn = 32); translate([0, d / 2 * sqrt(2)]) square(0.01, center = true); }
}
// An opening in an end wall (x = const), y0-y1 wide, from z0 up to z1 and
// pointed above that (50 degrees: 45 is the slicer's limit).
module end_opening(x0, x1, y0, y1, z0, z1) {
    w = y1 - y0;
    translate([x0, 0, 0]) rotate([90, 0, 90]) linear_extrude(x1 - x0)
        polygon([[y0, z0], [y1, z0], [y1, z1], [(y0 + y1) / 2, z1 + 0.6 * w], [y0, z1]]);
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
    box([ga[0], ga[1], 0], [ga[0] + g[0], ga[1] + g[1] + reach, gh(b)]);
    box([0, 0, -pcb], [ow(b), oh(b) + reach, 0]);
    box([bk[0], bk[0], -pcb - bk[1]], [ow(b) - bk[0], oh(b) - bk[0] + reach, -pcb]);
    assert(fpc_edge(p) == "bottom" || fpc_edge(p) == "left" || fpc_edge(p) == "right",
        "fpc: edge is bottom, left or right");
    // A flex on a side edge runs from the glass's end over the board's front
    // and round that edge (or, a glass past the edge, round the glass's end);
    // one on the bottom edge, round the bottom.
    if (fpc_edge(p) == "left")
        box([min(ga[0], 0) - f[2], f[0] - f[1] / 2, -pcb], [max(ga[0], 0), f[0] + f[1] / 2 + reach, gh(b)]);
    else if (fpc_edge(p) == "right")
        box([min(ga[0] + g[0], ow(b)), f[0] - f[1] / 2, -pcb],
            [max(ga[0] + g[0], ow(b)) + f[2], f[0] + f[1] / 2 + reach, gh(b)]);
    else
        box([f[0] - f[1] / 2, -f[2], -pcb], [f[0] + f[1] / 2, reach, gh(b)]);
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
    reach = top_h(b) / cos(bget(b, "tilt")) + oh(b);
    on_board(b, seat) board_parts(b, seat, reach);
}

module panel_contents(b, seat) {
    on_board(b, seat) {
        board_parts(b, seat);
        if (seat == 0 && bget(b, "pi_stack")) pi_stack(b);
    }
    if (bget(b, "buttons")) for (s = button_s(b)) in_face(b, seat) {
        // A 12 mm tactile key in its cradle: its body against the wall's inside,
        // its cap through the hole to 0.5 mm short of the face (or beyond).
        h = KEY[0] / 2;
        // (0.05 short of the key bar: the bar rests on it)
        box([s - h, button_t(b) - h, -WALL - KEY[1] + 0.05], [s + h, button_t(b) + h, -WALL]);
        translate([s, button_t(b), -WALL]) cylinder(d = KEY[2], h = WALL - 0.5, $fn = 24);
    }
}

// Seat A's HAT on the Pi, through the splitter (board coordinates: the Pi's
// outline is the HAT's, 85 x 56, the Pi's own drawing; its parts face the HAT).
// Modelled: PI_GAP from the HAT's back to the Pi's board (the HAT's 8.5 mm
// socket and about 11 mm of splitter: an estimate, measure yours), the Pi's
// 1.4 mm board and 2 mm under it; the USB and Ethernet overhang 2.5 mm on the
// right, the SD card 2.5 mm on the left, the USB-C plug and its bend 25 mm below
// the bottom edge at x 7-15.5 (Pi 4 drawing: USB-C at 11.2).
PI_GAP = 19.5;
module pi_stack(b) {
    pcb = pget(bget(b, "panel"), "pcb");
    z0 = -pcb - PI_GAP;
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
BUTTON_SIDE = KEY[0];
// The least room kept between two keys' bodies: a choice, not a measurement
// (no datasheet gives one), for the keys' legs, their tolerance and the glue.
BUTTON_GAP = KEY_GAP;
CRADLE = 2.0;  // a key cradle's wall round the key's body
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
// The key bar's two screws, beside the outer keys' cradles.
function keybar_s(b) = let(k = button_s(b), o = KEY[0] / 2 + CRADLE + 4)
    [k[0] - o, k[3] + o];

// What sits on the base plate: the weight, and a touch build's boards
// ([x, y] of each one's middle, its size [along x, along y, height]).
module weight(b) {
    wt = bget(b, "weight");
    translate([wt[1][0] - wt[0][0] / 2, wt[1][1] - wt[0][1] / 2, 0.01]) cube(wt[0]);
}
// An MPR121 breakout in its frame: estimate, Adafruit's 1982 board taken as
// 28 x 21 mm, 5 mm tall with its parts and header (no drawing read); its
// coupon checks the frame.
MPR121 = [28, 21, 5];
// A Raspberry Pi Pico on four posts: 51 x 21 mm, 1 mm board, four 2.1 mm
// holes (Raspberry Pi Pico Datasheet, "Mechanical Specification"), 47.0 x 11.4
// apart (its Figure 3, as hobbyists' models give it: measure); 4 mm above its
// board for the USB plug, 3 mm under it for solder joints.
PICO = [51, 21, 1];
PICO_HOLES = [47.0, 11.4];
PICO_POST = 3;
module boards(b) {
    if (has(b, "mpr121")) let(m = bget(b, "mpr121"))
        translate([m[0] - MPR121[0] / 2, m[1] - MPR121[1] / 2, 0.01]) cube(MPR121);
    if (has(b, "pico")) let(m = bget(b, "pico")) {
        translate([m[0] - PICO[0] / 2, m[1] - PICO[1] / 2, PICO_POST + 0.01]) cube([PICO[0], PICO[1], PICO[2] + 4]);
        // its USB plug, out of the +x end
        translate([m[0] + PICO[0] / 2 - 1, m[1] - 6, PICO_POST + 0.01]) cube([bget(b, "pico_lead"), 12, 8]);
    }
}

module contents(b) {
    panel_contents(b, 0);
    panel_contents(b, 1);
    weight(b);
    boards(b);
}

// ---- the body ----------------------------------------------------------------

// What each face adds inside: the panel's retainer (a HAT's four bosses, or a
// module's channel: two lips behind the board's side edges and two stops
// under its bottom corners), and a touch build's key cradles and the key bar's
// bosses. Each with a ramp under it.
module face_solid(b, seat) {
    p = bget(b, "panel");
    pcb = pget(p, "pcb");
    t0 = bget(b, "t0");
    back = pcb_w(b) - pcb - CLEAR;  // w just behind the board
    if (bget(b, "retainer") == "bosses") {
        // A boss under each hole below the glass, 0.05 mm short of the board's
        // front: the screw pulls the board onto it, and the glass (glass_h over
        // the board) keeps GLASS_GAP off the wall. A hole above the glass gets no
        // boss (one would hang over the glass with nothing under it to print
        // on): a printed spacer goes there (`spacer`).
        L = -pcb_w(b) - WALL - 0.05;
        for (c = boss_holes(b)) in_face(b, seat) difference() {
            translate([c[0] - ow(b) / 2, t0 + c[1], 0]) hull() {
                translate([0, 0, -WALL - L]) cylinder(d = 7, h = L + 0.01, $fn = 24);
                translate([-3.5, -GUSSET_K * L - 3.5, -WALL - 0.01]) cube([7, 0.01, 0.02]);
            }
            translate([-ow(b) / 2, t0, pcb_w(b)]) {
                glass_clearance(b);
                // and the HAT's keys' holes, straight through (a boss beside one
                // would hang over it)
                k = pget(p, "keys");
                if (len(k) > 0) for (c = k[0]) let(h = (k[1][0] + 1) / 2 + 0.3)
                    translate([c[0] - h, c[1] - h, -1]) cube([2 * h, 2 * h, 10]);
            }
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
            // The lip, joined to the end wall: its foot slopes down to the wall at
            // 45 degrees along the face.
            s0 = ow(b) / 2 - LIP;
            hull() {
                box([s0, t0 - 3, back - LIP_T], [out + 0.01, cn_top, back]);
                box([out - 0.01, t0 - 3 - (out - s0), back - LIP_T], [out + 0.01, cn_top, back]);
            }
            // The rib from the lip to the face, the rail in front of the board's
            // edge (the board rests on it, so its glass keeps GLASS_GAP off the
            // wall), and the stop under the board's corner.
            gusset(ow(b) / 2 + CLEAR - 0.01, out + 0.5, t0 - 3, rib_top, -WALL - (back - LIP_T));
            gusset(ow(b) / 2 - RAIL, ow(b) / 2 + CLEAR, t0 - 3, rib_top, -WALL - pcb_w(b) - 0.05);
            gusset(ow(b) / 2 - 8, out + 0.01, t0 - CLEAR - 3, t0 - CLEAR, -WALL - back);
        }
    }
    if (bget(b, "buttons")) in_face(b, seat) {
        o = KEY[0] / 2 + CRADLE;
        for (s = button_s(b)) gusset(s - o, s + o, button_t(b) - o, button_t(b) + o, KEY[1]);
        for (s = keybar_s(b)) gusset(s - 4, s + 4, button_t(b) - 4, button_t(b) + 4, KEY[1]);
    }
}
function body_slope(b) = (body_h(b) - 2) / cos(bget(b, "tilt")) - WALL;

// Room for the glass round a HAT's bosses: its outline and CLEAR, from the board
// to the wall (board coordinates).
module glass_clearance(b) {
    g = pget(bget(b, "panel"), "glass");
    ga = pget(bget(b, "panel"), "glass_at");
    translate([ga[0] - CLEAR, ga[1] - CLEAR, -1]) cube([g[0] + 2 * CLEAR, g[1] + 2 * CLEAR, gh(b) + GLASS_GAP + 1.01]);
}
// A HAT's holes below its glass (bosses) and above it (spacers).
function boss_holes(b) = let(p = bget(b, "panel"))
    [for (c = pget(p, "holes")[0]) if (c[1] < pget(p, "glass_at")[1]) c];
function spacer_holes(b) = let(p = bget(b, "panel"))
    [for (c = pget(p, "holes")[0]) if (c[1] >= pget(p, "glass_at")[1]) c];
// The spacer under a hole above the glass: a horseshoe as thick as a boss is
// long, its open side towards the glass (so it slides onto the screw between
// the face and the board after the screw is in), cut level CLEAR above the
// glass's top edge; printed flat (`spacer_printed`). Board coordinates.
module spacer(b, c) {
    L = -pcb_w(b) - WALL - 0.05;
    g = pget(bget(b, "panel"), "glass");
    ga = pget(bget(b, "panel"), "glass_at");
    cut = ga[1] + g[1] + CLEAR - c[1];  // the glass's top edge and CLEAR, from the hole's middle
    difference() {
        cylinder(d = 7, h = L, $fn = 32);
        translate([0, 0, -1]) hull() { cylinder(d = 3.0, h = L + 2, $fn = 24); translate([0, -5, 0]) cylinder(d = 3.0, h = L + 2, $fn = 24); }
        translate([-5, cut - 10, -1]) cube([10, 10, L + 2]);
    }
}
module spacers_in_place(b, seat) {
    for (c = spacer_holes(b)) on_board(b, seat) translate([c[0], c[1], 0.05]) spacer(b, c);
}
module spacers_printed(b) {
    h = spacer_holes(b);
    for (i = [0:len(h) - 1]) translate([i * 10, 0, 0]) spacer(b, h[i]);
}

// What each face cuts: the window (see WIN_*), the HAT's keys' holes (square,
// pointed on top), the screws' holes, the touch keys' holes, their cradles'
// pockets and the key bar's insert holes.
module face_cuts(b, seat) {
    p = bget(b, "panel");
    a = pget(p, "active");
    aa = [pget(p, "glass_at")[0] + pget(p, "active_at")[0], pget(p, "glass_at")[1] + pget(p, "active_at")[1]];
    sx = WALL * tan(WIN_SIDE);
    sy = WALL * tan(WIN_TB);
    in_face(b, seat) translate([-ow(b) / 2, bget(b, "t0"), 0]) {
        ti = WIN_TOP + (WALL + 0.01) * tan(bget(b, "tilt"));  // the top at the wall's inside
        hull() {
            translate([aa[0] - WIN_IN, aa[1] - WIN_IN, -WALL - 0.01]) cube([a[0] + 2 * WIN_IN, a[1] + WIN_IN + ti, 0.01]);
            translate([aa[0] - WIN_IN - sx, aa[1] - WIN_IN - sy, 0]) cube([a[0] + 2 * (WIN_IN + sx), a[1] + WIN_IN + sy + WIN_TOP, 0.01]);
        }
        // Below the wall's inside the window opens square to the board (the
        // gap the gasket fills): nothing of the wall shades the glass's edge.
        translate([aa[0] - WIN_IN, aa[1] - WIN_IN, -WALL - GLASS_GAP]) cube([a[0] + 2 * WIN_IN, a[1] + WIN_IN + ti, GLASS_GAP]);
        // A HAT's keys: each a square hole 0.5 mm round the key, its top level in
        // the world (a short bridge: a pointed top would reach under the top
        // screws' heads). Where the keys and the holes are estimated to be, the
        // top key's hole and the top-left screw's hole have 0.8 mm of wall
        // between them at the face's inside, 1.6 at its outside, where the head
        // bears: tests/test_enclosure.py's wall scan excuses that one web and
        // nothing else, and the face coupon shows it. (The hole's top 0.9 mm
        // lower, level at the inside, leaves 1.6 mm there, but PrusaSlicer then
        // supports the bridge over it: the slicer decides.)
        k = pget(p, "keys");
        if (len(k) > 0) for (c = k[0]) let(h = k[1][0] / 2 + 0.5) hull() {
            translate([c[0] - h, c[1] - h, -WALL - 1]) cube([2 * h, 2 * h + (WALL + 1) * tan(bget(b, "tilt")), 0.01]);
            translate([c[0] - h, c[1] - h, 1]) cube([2 * h, 2 * h - tan(bget(b, "tilt")), 0.01]);
        }
        if (bget(b, "retainer") == "bosses") for (c = pget(p, "holes")[0])
            teardrop(c[0], c[1], SCREW_HOLE, pcb_w(b) - 1, 1);
    }
    if (bget(b, "buttons")) in_face(b, seat) {
        for (s = button_s(b)) {
            teardrop(s, button_t(b), KEY[2] + 1, -WALL - 1, 1);
            // The cradle's pocket: the key's body and 0.2 mm, its top pointed.
            pointed(s, button_t(b), KEY[0] + 0.4, KEY[0] + 0.4, -WALL - KEY[1] - 1, -WALL + 0.01);
        }
        for (s = keybar_s(b)) teardrop(s, button_t(b), INSERT[0], -WALL - KEY[1] - 0.01, -WALL - KEY[1] + INSERT[1]);
    }
}

// The base plate's fixings: four posts in the body's bottom corners, an insert
// in each from below; the lid's: a boss under the top of each end wall, an
// insert in each from above.
function post_xy(b) = let(x = body_w(b) / 2 - WALL - 4.5, y = hy(b, 0, -WALL) - 20)
    [[-x, -y], [x, -y], [x, y], [-x, y]];
function lid_x(b) = body_w(b) / 2 - WALL - 4.5;
// The lid's bosses sit 2 mm off the middle, towards the seat whose board's
// connector is not at that end (the two seats' boards are turned half a turn
// to each other, so are the bosses): the 4.2" module's plug passes 4.1 mm from
// the middle on its way in.
LID_Y = 2;
module fixings(b) {
    for (c = post_xy(b)) translate([c[0], c[1], 0]) cylinder(d = 9, h = 9, $fn = 32);
    for (r = [0, 180]) rotate(r) hull() {
        translate([lid_x(b), LID_Y, body_h(b) - 8]) cylinder(d = 9, h = 8, $fn = 32);
        translate([body_w(b) / 2 - WALL - 0.01, LID_Y - 4.5, body_h(b) - 8 - 11]) cube([0.02, 9, 19]);
    }
}
module fixing_holes(b) {
    for (c = post_xy(b)) translate([c[0], c[1], -0.01]) cylinder(d = INSERT[0], h = INSERT[1], $fn = 24);
    for (r = [0, 180]) rotate(r)
        translate([lid_x(b), LID_Y, body_h(b) - INSERT[1]]) cylinder(d = INSERT[0], h = INSERT[1] + 0.01, $fn = 24);
}

module body(b) {
    H = body_h(b);
    difference() {
        intersection() {
            body_outside(b);
            union() {
                difference() { body_outside(b); inside(b, -1, H + 1); }
                face_solid(b, 0);
                face_solid(b, 1);
                fixings(b);
            }
        }
        face_cuts(b, 0);
        face_cuts(b, 1);
        build_cuts(b);
        fixing_holes(b);
    }
}

// Openings of the build's own: the minimal build's SD card slot, the Pi's
// power lead's notch under seat A's face, the USB/Ethernet end and vents; a
// touch build's two openings at the foot of its end walls: the mat's leads on
// -x (the mat's edge), the leads to the Pi (or the Pico's USB) on +x. Each
// opening is pointed on top; a cable tie through the base plate's two slots
// beside it holds the lead (`strain`).
module build_cuts(b) {
    W = body_w(b);
    H = body_h(b);
    M = face_m(bget(b, "depth"), bget(b, "tilt"), 0);
    if (bget(b, "pi_stack")) {
        zpi = pcb_w(b) - pget(bget(b, "panel"), "pcb") - PI_GAP;
        sd = pt(M, board_to_face(b, [-2.5, 28, zpi - 2.4]));
        end_opening(-W / 2 - 1, -W / 2 + WALL + 1, sd[1] - 9, sd[1] + 9, sd[2] - 6, sd[2] + 4);
        // USB and Ethernet: the +x end wall open over them (air goes in there too).
        // Over the ports' lower half (the body is wide enough for them: this is
        // for reaching them and for air), its roof's peak at their highest corner.
        u = [for (y = [4, 36], z = [zpi, zpi + 16]) pt(M, board_to_face(b, [87, y, z]))];
        uy = [for (p = u) p[1]];
        uz = [for (p = u) p[2]];
        end_opening(W / 2 - WALL - 1, W / 2 + 1, min(uy), max(uy), min(uz), max(uz) - (max(uy) - min(uy)) / 2);
        // The power lead leaves under seat A's face.
        in_face(b, 0) pointed(7 - ow(b) / 2 + 4.25, 3, 12.5, 14, -WALL - 1, 1);
        // Vents: slots in the -x end wall, high up, for the air the +x opening lets in.
        for (i = [0:3]) translate([-W / 2 - 1, -16 + i * 7, H - 34]) cube([WALL + 2, 3, 14]);
    }
    if (bget(b, "cable_exit")) {
        e = bget(b, "exit");
        end_opening(W / 2 - WALL - 1, W / 2 + 1, e[0], e[1], -1, 9);
        end_opening(-W / 2 - 1, -W / 2 + WALL + 1, -8, 8, -1, 5);
    }
}

// Where a lead leaves the body: [x, y, direction along x] of the opening's
// foot; the base plate's two tie slots sit 8 mm inside it.
function strains(b) = bget(b, "pi_stack")
    ? [[7 - ow(b) / 2 + 4.25, -bget(b, "depth") / 2 + 16, 0]]
    : [[body_w(b) / 2 - WALL - 3.5, 0, 1], [-body_w(b) / 2 + WALL + 3.5, 0, -1]];

// The base plate: under the body, the same outline (and a touch build's foot
// beyond the +x end), with a foot's recess under each corner, an M3 screw up
// through each into a post, the weight's pocket, the boards' frame and posts,
// and a pair of tie slots inside each opening. Printed as it lies.
module base(b) {
    W = body_w(b);
    foot = bget(b, "foot");
    wt = bget(b, "weight");
    difference() {
        union() {
            translate([0, 0, -BASE_T]) hull() {
                linear_extrude(0.01) section2d(b, 0, 0, R_EDGE, CH_BOT);
                translate([0, 0, CH_BOT]) linear_extrude(BASE_T - CH_BOT) section2d(b, 0, 0, R_EDGE);
                if (foot > 0) translate([W / 2 + foot - R_EDGE, 0, 0]) for (y = [-1, 1])
                    translate([0, y * (hy(b, 0, 0) - R_EDGE), 0]) cylinder(r = R_EDGE, h = BASE_T, $fn = 32);
            }
            // The weight's pocket: a rim 2 mm high round it.
            translate([wt[1][0], wt[1][1], 0]) difference() {
                translate([-wt[0][0] / 2 - 2.3, -wt[0][1] / 2 - 2.3, 0]) cube([wt[0][0] + 4.6, wt[0][1] + 4.6, 2]);
                translate([-wt[0][0] / 2 - 0.3, -wt[0][1] / 2 - 0.3, -1]) cube([wt[0][0] + 0.6, wt[0][1] + 0.6, 4]);
            }
            if (has(b, "mpr121")) let(m = bget(b, "mpr121")) translate([m[0], m[1], 0]) difference() {
                translate([-MPR121[0] / 2 - 2.1, -MPR121[1] / 2 - 2.1, 0]) cube([MPR121[0] + 4.2, MPR121[1] + 4.2, 2.5]);
                translate([-MPR121[0] / 2 - 0.3, -MPR121[1] / 2 - 0.3, -1]) cube([MPR121[0] + 0.6, MPR121[1] + 0.6, 4]);
                // the header's end open for its leads
                translate([MPR121[0] / 2 - 1, -MPR121[1] / 2 + 2, -1]) cube([4, MPR121[1] - 4, 4]);
            }
            if (has(b, "pico")) let(m = bget(b, "pico"))
                for (i = [-1, 1], j = [-1, 1]) translate([m[0] + i * PICO_HOLES[0] / 2, m[1] + j * PICO_HOLES[1] / 2, 0])
                    difference() { cylinder(d = 5.2, h = PICO_POST, $fn = 24); translate([0, 0, 0.6]) cylinder(d = 1.7, h = PICO_POST, $fn = 16); }
        }
        for (c = base_feet(b)) translate([c[0], c[1], -BASE_T - 0.01]) cylinder(d = FOOT[0], h = FOOT[1] + 0.01, $fn = 48);
        for (c = post_xy(b)) translate([c[0], c[1], -BASE_T - 1]) cylinder(d = 3.4, h = BASE_T + 2, $fn = 24);
        for (c = strains(b)) for (j = [-1, 1])
            translate(c[2] == 0 ? [c[0] + j * 5 - 1, c[1] - 2, -BASE_T - 1] : [c[0] - 2, c[1] + j * 5 - 1, -BASE_T - 1])
                cube(c[2] == 0 ? [2, 4, BASE_T + 1.01] : [4, 2, BASE_T + 1.01]);
        // MPR121: a cable tie over the board through two slots beside its frame,
        // across its width (or, its entry's third figure 1, along its length)
        if (has(b, "mpr121")) let(m = bget(b, "mpr121")) for (j = [-1, 1])
            if (len(m) > 2 && m[2] == 1)
                translate([m[0] + j * (MPR121[0] / 2 + 3.8) - 1, m[1] - 2, -BASE_T - 1]) cube([2, 4, BASE_T + 1.01]);
            else
                translate([m[0] - 2, m[1] + j * (MPR121[1] / 2 + 3.8) - 1, -BASE_T - 1]) cube([4, 2, BASE_T + 1.01]);
    }
}
// The feet: one near each corner, two under the foot's end.
function base_feet(b) = let(x = body_w(b) / 2 - 8, y = hy(b, 0, 0) - 8, f = bget(b, "foot"))
    concat([[-x, -y], [x, -y], [x, y], [-x, y]], f > 0 ? [[x + f, -y], [x + f, y]] : []);

// The lid: the stand's top, LID_T thick over the body's top, its edges
// chamfered; two tongues under it along the faces' insides centre it, two
// M3 button-head screws hold it to the end walls' bosses.
module lid(b) {
    H = body_h(b);
    difference() {
        union() {
            lid_outside(b);
            intersection() {
                hull() { slice(b, H - 3, -WALL - 0.25, 1); slice(b, H, -WALL - 0.25, 1); }
                difference() {
                    translate([-body_w(b) / 2 + 16, -200, H - 3]) cube([body_w(b) - 32, 400, 3.01]);
                    hull() { slice(b, H - 3.1, -WALL - 1.85, 1); slice(b, H + 0.1, -WALL - 1.85, 1); }
                }
            }
        }
        for (r = [0, 180]) rotate(r) translate([lid_x(b), LID_Y, H - 1]) cylinder(d = 3.4, h = LID_T + 2, $fn = 24);
    }
}

// A touch build's key bar: a strip over the backs of a face's four keys, an M3
// screw through each end into the bosses beside the cradles (face coordinates;
// `keybar_part` lays it flat for printing).
module keybar(b) {
    k = keybar_s(b);
    difference() {
        translate([k[0] - 4, button_t(b) - 4, -WALL - KEY[1] - KEYBAR_T]) cube([k[1] - k[0] + 8, 8, KEYBAR_T]);
        for (s = k) translate([s, button_t(b), -WALL - KEY[1] - KEYBAR_T - 1]) cylinder(d = 3.4, h = KEYBAR_T + 2, $fn = 24);
    }
}

module lid_printed(b) {
    translate([0, 0, top_h(b)]) rotate([180, 0, 0]) lid(b);
}
module base_printed(b) {
    translate([0, 0, BASE_T]) base(b);
}
module keybar_printed(b) {
    translate([0, 0, WALL + KEY[1] + KEYBAR_T]) keybar(b);
}

// Seat A's face as a thin frame: the wall, what stands on its inside and 14 mm
// behind it, around the panel (and the keys), laid face down for printing.
// Printed in minutes, it shows whether the board, its glass, its keys and a
// touch build's keys fit before the long print (hardware/README.md).
// A HAT's coupon is its whole frame (its keys, bosses and holes are all round
// the window's edges); a module's is what tells where the board and its glass
// sit, and no more: two opposite corners of the frame (each a corner of the
// window, the rail, the lip's place and, at the bottom, the stop, COUPON_CORNER
// along each edge) and, for a touch build, the first key's cradle and the key
// bar's boss beside it (a key bar, screwed on there, shows whether it holds
// the key). Two pieces on the bed; the board registers each.
COUPON_CORNER = 14;
module coupon(b) {
    t1 = bget(b, "t0") + oh(b) + 4;
    t0 = bget(b, "buttons") ? 0 : bget(b, "t0") - 4;
    // Down to the board's back: the board lies on the rails or bosses, its glass
    // in the window, a HAT's keys in their holes (the lips behind would hang
    // over it printed face down, so they are left off).
    d = -(pcb_w(b) - pget(bget(b, "panel"), "pcb"));
    // Of the wall itself only its inner COUPON_WALL: the board's place is what
    // is measured, and the coupon prints in a fraction of the time.
    e = WALL - COUPON_WALL;
    s0 = -body_w(b) / 2 + R_EDGE;  // (within the face's flat: its rounded edges would overhang face down)
    s1 = body_w(b) / 2 - R_EDGE;
    a = active_s(b);
    p = bget(b, "panel");
    ab = bget(b, "t0") + pget(p, "glass_at")[1] + pget(p, "active_at")[1];  // the active area's bottom, t
    at = ab + pget(p, "active")[1];
    // face frame to print: s stays x, t becomes -y, the outer face on the bed
    multmatrix(coupon_m(b)) intersection() {
            multmatrix(invert_face(bget(b, "depth"), bget(b, "tilt"))) body(b);
            if (bget(b, "retainer") == "bosses") box([s0, t0, -d], [s1, t1, -e]);
            else union() {
                box([s0, bget(b, "t0") - 4, -d], [a[0] + COUPON_CORNER, ab + COUPON_CORNER, -e]);
                box([a[0] + a[1] - COUPON_CORNER, at - COUPON_CORNER, -d], [s1, t1, -e]);
                // (to halfway to the second key: clear of its cradle)
                if (bget(b, "buttons")) let(k = keybar_s(b)[0], o = KEY[0] / 2 + CRADLE + 1, bs = button_s(b))
                    box([k - 5, button_t(b) - o - GUSSET_K * KEY[1], -d],
                        [(bs[0] + bs[1]) / 2, max(button_t(b) + o, bget(b, "t0") - 3), -e]);
            }
        }
}
// 2.2: the key bar's insert holes reach 0.6 mm into the wall, so 1.6 stays.
COUPON_WALL = 2.2;
// The coupon's place on the bed from the face's frame (s stays x, t becomes
// -y, the outer face down, WALL - COUPON_WALL of it under the bed); and from
// the world, as echoed for the tests (which measure the coupon where the body is).
function coupon_m(b) = [[1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, -(WALL - COUPON_WALL)], [0, 0, 0, 1]];
function coupon_from_world(b) = coupon_m(b) * invert_face(bget(b, "depth"), bget(b, "tilt"));

// The bought parts' coupon: an M3 insert's boss (INSERT) on a disc as thick as
// the base plate, a foot's recess under it (FOOT) and, for a touch build, the
// MPR121's frame and the Pico's four posts as the base plate has them, on a
// thin open frame (the boards lie on a ledge: the coupon prints in minutes).
// Press an insert in, stick a foot on, lay the boards in.
PARTS_PLATE = 1.6;
module parts_coupon(b) {
    mp = has(b, "mpr121");
    pc = has(b, "pico");
    L = 24 + (mp ? MPR121[0] + 10 : 0) + (pc ? PICO[0] + 8 : 0);
    mx = 24 + MPR121[0] / 2 + 2;
    px = L - PICO[0] / 2 - 4;
    difference() {
        union() {
            translate([12, 0, 0]) cylinder(d = 16, h = BASE_T, $fn = 48);
            translate([12, 0, 0]) cylinder(d = 9, h = 9, $fn = 32);
            translate([12, -4, 0]) cube([L - 12, 8, PARTS_PLATE]);  // the spine joining them
            if (mp) translate([mx, 0, 0]) difference() {
                translate([-MPR121[0] / 2 - 2.1, -MPR121[1] / 2 - 2.1, 0])
                    cube([MPR121[0] + 4.2, MPR121[1] + 4.2, PARTS_PLATE + 2.5]);
                translate([-MPR121[0] / 2 - 0.3, -MPR121[1] / 2 - 0.3, PARTS_PLATE])
                    cube([MPR121[0] + 0.6, MPR121[1] + 0.6, 4]);
                // the ledge the board lies on: 3 mm round its edge
                translate([-MPR121[0] / 2 + 3, -MPR121[1] / 2 + 3, -1]) cube([MPR121[0] - 6, MPR121[1] - 6, 4]);
            }
            if (pc) translate([px, 0, 0]) {
                for (i = [-1, 1]) translate([i * PICO_HOLES[0] / 2 - 2.6, -PICO_HOLES[1] / 2, 0])
                    cube([5.2, PICO_HOLES[1], PARTS_PLATE]);
                for (i = [-1, 1], j = [-1, 1]) translate([i * PICO_HOLES[0] / 2, j * PICO_HOLES[1] / 2, 0])
                    difference() {
                        cylinder(d = 5.2, h = PARTS_PLATE + PICO_POST, $fn = 24);
                        translate([0, 0, PARTS_PLATE + 0.6]) cylinder(d = 1.7, h = PICO_POST, $fn = 16);
                    }
            }
        }
        translate([12, 0, 9 - INSERT[1]]) cylinder(d = INSERT[0], h = INSERT[1] + 0.01, $fn = 24);
        translate([12, 0, -0.01]) cylinder(d = FOOT[0], h = FOOT[1] + 0.01, $fn = 48);
    }
}
// face_m(D, tilt, 0)'s inverse: world to face (s, t, w).
function invert_face(D, tilt) =
    [[1, 0, 0, 0], [0, sin(tilt), cos(tilt), D / 2 * sin(tilt)], [0, -cos(tilt), sin(tilt), -D / 2 * cos(tilt)], [0, 0, 0, 1]];

module assembled(b) {
    body(b);
    lid(b);
    base(b);
    if (bget(b, "retainer") == "bosses") for (seat = [0, 1]) spacers_in_place(b, seat);
    if (bget(b, "buttons")) for (seat = [0, 1]) in_face(b, seat) keybar(b);
}

// ---- the facts the tests check --------------------------------------------

module facts(b) {
    D = bget(b, "depth");
    tilt = bget(b, "tilt");
    p = bget(b, "panel");
    a = pget(p, "active");
    aa = [pget(p, "glass_at")[0] + pget(p, "active_at")[0], pget(p, "glass_at")[1] + pget(p, "active_at")[1]];
    W = body_w(b);
    for (seat = [0, 1]) {
        M = face_m(D, tilt, seat);
        // The active area's corners (lower-left, lower-right, upper-right,
        // upper-left as the seat sees them), the middles of its edges and its centre.
        echo("KS", "active", seat, [for (c = [[0, 0], [a[0], 0], [a[0], a[1]], [0, a[1]],
            [a[0] / 2, 0], [a[0], a[1] / 2], [a[0] / 2, a[1]], [0, a[1] / 2], [a[0] / 2, a[1] / 2]])
            board_pt(b, seat, [aa[0] + c[0], aa[1] + c[1], gh(b)])]);
        out = dv(M, [0, 0, 1]);
        k = pget(p, "keys");
        if (len(k) > 0) for (c = k[0]) echo("KS", "key", seat, board_pt(b, seat, [c[0], c[1], k[1][1]]), out);
        if (bget(b, "buttons")) for (s = button_s(b))
            echo("KS", "key", seat, pt(M, [s, button_t(b), -0.5]), out);
        // A HAT's screws: where each head sits on the face, the way in, the head's diameter.
        if (bget(b, "retainer") == "bosses") for (c = pget(p, "holes")[0])
            echo("KS", "screw", seat, board_pt(b, seat, [c[0], c[1], -pcb_w(b)]), dv(M, [0, 0, -1]), HEAD_D, HAT_SCREW[seat],
                pget(p, "pcb"));
    }
    if (bget(b, "pi_stack")) {
        zpi = pcb_w(b) - pget(p, "pcb") - PI_GAP;
        M0 = face_m(D, tilt, 0);
        echo("KS", "port", "SD card", pt(M0, board_to_face(b, [-2.5, 28, zpi - 2.4])), [-1, 0, 0]);
        echo("KS", "port", "USB and Ethernet", pt(M0, board_to_face(b, [87.5, 28, zpi + 8])), [1, 0, 0]);
        echo("KS", "port", "power lead", pt(M0, [11.25 - ow(b) / 2, 4, -WALL - 3]), dv(M0, [0, 0, 1]));
    }
    if (bget(b, "cable_exit")) {
        echo("KS", "port", "leads to the Pi", [W / 2 - WALL - 5, 0, 4], [1, 0, 0]);
        echo("KS", "port", "the mat's leads", [-W / 2 + WALL + 5, 0, 3], [-1, 0, 0]);
    }
    if (bget(b, "foot") > 0) echo("KS", "mat_side", -W / 2);
    echo("KS", "weight", bget(b, "weight")[0]);
    echo("KS", "coupon_from_world", coupon_from_world(b));
}

module stand(b, part) {
    facts(b);
    if (part == "body") body(b);
    else if (part == "lid") lid_printed(b);
    else if (part == "base") base_printed(b);
    else if (part == "keybar") keybar_printed(b);
    else if (part == "spacer") spacers_printed(b);
    else if (part == "coupon") coupon(b);
    else if (part == "parts_coupon") parts_coupon(b);
    else if (part == "contents") contents(b);
    else if (part == "assembled") assembled(b);
    else if (part == "fit") {
        intersection() { assembled(b); contents(b); }
        intersection() { panel_contents(b, 0); panel_contents(b, 1); }
        intersection() { union() { panel_contents(b, 0); panel_contents(b, 1); } union() { weight(b); boards(b); } }
    } else if (part == "way_in") {
        // Empty when each module slides in from the top without touching the body
        // (a HAT on bosses goes in from below, with the Pi: nothing to check).
        // CLOSED_TOP (set by a test) puts the lid on first: then it is not.
        if (bget(b, "retainer") != "bosses") for (seat = [0, 1])
            intersection() { union() { body(b); if (CLOSED_TOP) lid(b); } way_in(b, seat); }
    } else if (part == "preview") {
        color("SteelBlue") assembled(b);
        color("Gainsboro") contents(b);
    } else if (part == "section") {
        // Cut at the middle of the active area (x), seen from +x.
        cx = active_s(b)[0] + active_s(b)[1] / 2;
        intersection() {
            union() { color("SteelBlue") assembled(b); color("Gainsboro") contents(b); }
            translate([cx - 500, -500, -50]) cube([500, 1000, 500]);
        }
    }
}
