// touch-mpr121: two 4.2" modules back to back at the mat's edge, four 12 mm
// keys a seat under each window, the leads out of the +x end (away from the
// mat, over the foot) towards the Pi under the table.
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
    ["lid", true],
    ["foot", 40],  // on +x only: the word cards lie on -x
    ["cable_exit", true],
];

stand(BUILD, part);
