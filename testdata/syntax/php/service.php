<?php
namespace App;

class UserService
{
    /** By id. */
    public function findById($id)
    {
        return null;
    }
}

function helper() {}
