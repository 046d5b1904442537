// touch-mpr121: two 4.2" modules back to back at the mat's edge, four 12 mm
// keys a seat under each window, the MPR121 breakout on the base plate, the
// mat's leads in at the -x end (the mat's edge), the leads to the Pi under the
// table out of the +x end (away from the mat, over the foot).
include <body.scad>

part = "body";

BUILD = [
    ["panel", PANEL_4IN2_MODULE],
    ["tilt", 20],  // degrees back from vertical: body.scad says why
    ["depth", 110],  // the foot print, seat to seat: room for plugs behind the boards (their sockets now sit at the boards' ends: room to spare)
    ["t0", 26],  // the module's bottom edge up the face: the keys go under it
    ["retainer", "channel"],
    ["pi_stack", false],
    ["buttons", true],
    ["foot", 40],  // on +x only: the word cards lie on -x
    ["cable_exit", true],
    ["exit", [-10, 10]],  // the +x opening, from y to y
    ["headroom", 4],
    // A steel bar [size], [x, y of its middle] on the base plate: see
    // hardware/README.md "Feet and a weight".
    ["weight", [[74, 40, 14], [16, 0]]],
    ["mpr121", [-38, 0]],  // the breakout's middle on the base plate, by the mat's leads
];

stand(BUILD, part);
